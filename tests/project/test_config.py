from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.config import load_config
from trailblaze.core.errors import ErrorList, UsageError
from trailblaze.project.config import find_config


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(tmp_path: Path) -> None:
    config = load_config(None, discover=False)
    assert config.path is None
    assert config.project.timeout == 10
    assert config.project.trails_dir == "trails"


def test_snake_and_camel_case_are_both_accepted(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()  # a base_url that is not a URL is a folder
    snake = load_config(write(tmp_path / "a.yaml", "trails_dir: t\nmcp_servers: [{command: echo}]\nbase_url: x\n"))
    camel = load_config(write(tmp_path / "b.yaml", "trailsDir: t\nmcpServers: [{command: echo}]\nbaseUrl: x\n"))
    assert snake.project.model_dump() == camel.project.model_dump()
    assert camel.getini("mcp_servers")[0].command == "echo"


def test_unknown_keys_are_rejected_with_their_location(tmp_path: Path) -> None:
    path = write(tmp_path / "trailblaze.yaml", "timeout: 5\ntargets:\n  shop:\n    colour: red\n")
    with pytest.raises(ErrorList) as info:
        load_config(path)
    message = str(info.value.errors[0])
    assert message.startswith(f"{path}:4:5: targets.shop.colour: unknown key (expected one of:")
    assert "display_name" in message


def test_wrong_types_name_the_field(tmp_path: Path) -> None:
    path = write(tmp_path / "trailblaze.yaml", "timeout: soon\n")
    with pytest.raises(ErrorList, match=r"trailblaze.yaml:1:10: timeout: input should be a valid number"):
        load_config(path)


def test_an_mcp_server_needs_exactly_one_way_to_reach_it(tmp_path: Path) -> None:
    path = write(tmp_path / "trailblaze.yaml", "mcp_servers:\n  - {command: a, url: http://x}\n")
    with pytest.raises(ErrorList, match="exactly one of command:, script: or url:"):
        load_config(path)


def test_a_config_that_is_not_a_mapping_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="must be a mapping"):
        load_config(write(tmp_path / "trailblaze.yaml", "- a\n- b\n"))


def test_found_by_walking_up_and_paths_resolve_against_its_folder(tmp_path: Path) -> None:
    write(tmp_path / "trailblaze.yaml", "trails_dir: suites\nbrowser: bin/chrome\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    found = find_config(deep)
    assert found == tmp_path / "trailblaze.yaml"
    config = load_config(found)
    assert config.trails_dir == tmp_path / "suites"
    assert config.resolve("bin/chrome") == tmp_path / "bin" / "chrome"


def test_a_missing_explicit_config_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")
