"""The README's YAML examples (trail files, trailblaze.yaml, CI workflows) are YAML: a reader
copies them as they are."""

from __future__ import annotations

import re

import pytest
import yaml
from conftest import ROOT

BLOCKS = re.findall(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)


def test_the_readme_has_yaml_examples() -> None:
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{n}" for n, _ in enumerate(BLOCKS, 1)])
def test_every_yaml_example_parses(block: str) -> None:
    assert yaml.safe_load(block) is not None
