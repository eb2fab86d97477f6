"""``trailblaze_addoption``: options, settings and sections declared with pytest's names, in
isolation (a throwaway plugin manager, plugins defined here) and through the real command line."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

import trailblaze
from tests.support.cli import CliRunner, Project
from trailblaze.core.argparsing import Parser
from trailblaze.core.errors import ErrorList, UsageError
from trailblaze.pluginmanager import collect_options, get_plugin_manager
from trailblaze.runner.project import load_project

#: how the plugin manager names this module when it declares options (its import name)
HERE = re.escape(__name__)


class Shipping(BaseModel):
    model_config = ConfigDict(extra="forbid")

    carrier: str = "post"
    parcels: int = 1


class ShippingPlugin:
    @trailblaze.hookimpl
    def trailblaze_addoption(self, parser: Parser) -> None:
        group = parser.getgroup("shipping", "Shipping")
        group.addoption("--ship-to", metavar="ADDRESS", help="Where to ship.")
        group.addoption("--express", is_flag=True, help="Fast.")
        group.addoption("--parcel", multiple=True, help="Repeatable.")
        group.addoption("-s", "--signal", action="count", help="Louder.", commands=["run", "validate"])
        parser.addini("warehouse", "where parcels leave from", type=str, default="north")
        parser.add_section("shipping", Shipping)

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    @trailblaze.hookimpl
    def trailblaze_configure(self, config: trailblaze.Config) -> None:
        self.seen = {
            "ship_to": config.getoption("ship_to"),
            "by name": config.getoption("--ship-to"),
            "express": config.getoption("express"),
            "parcel": config.getoption("parcel"),
            "signal": config.getoption("signal"),
            "warehouse": config.getini("warehouse"),
            "shipping": config.section("shipping").model_dump(),
            "declares": config.declares("shipping"),
        }


def parser_with(*plugins: object) -> Parser:
    manager = get_plugin_manager(autoload=False)
    for plugin in plugins:
        manager.pm.register(plugin)
    return collect_options(manager)


def test_options_take_pytests_names_and_derive_dest_as_pytest_does() -> None:
    parser = parser_with(ShippingPlugin())
    options = {o.dest: o for o in parser.options_for("run")}
    assert options["ship_to"].names == ("--ship-to",) and options["ship_to"].action == "store"
    assert options["express"].is_flag and options["parcel"].multiple
    assert options["signal"].names == ("-s", "--signal") and options["signal"].action == "count"
    assert "signal" not in {o.dest for o in parser.options_for("record")}  # commands= narrows
    assert {"ship_to", "signal"} <= {o.dest for o in parser.options_for("run")}
    assert parser.getgroup("shipping").description == "Shipping"
    assert parser.defaults()["parcel"] == [] and parser.defaults()["signal"] == 0
    assert parser.find("--ship-to") is options["ship_to"]


def test_a_name_two_plugins_declare_for_one_command_names_both() -> None:
    class Copycat:
        @trailblaze.hookimpl
        def trailblaze_addoption(self, parser: Parser) -> None:
            parser.addoption("--json", metavar="PATH")

    with pytest.raises(
        UsageError, match=rf"option --json is declared twice: by {HERE} and by trailblaze\.plugins\.json_report"
    ):
        parser_with(Copycat())


def test_one_name_may_mean_different_options_for_different_commands() -> None:
    class Listing:
        @trailblaze.hookimpl
        def trailblaze_addoption(self, parser: Parser) -> None:
            parser.addoption("--json", dest="json_listing", is_flag=True, commands=["devices-x"])

    parser = parser_with(Listing())
    assert [o.dest for o in parser.options_for("devices-x")] == ["json_listing"]


@pytest.mark.parametrize(
    ("declare", "message"),
    [
        (lambda p: p.addoption("--x", colour="red"), r"unknown attribute\(s\) colour"),
        (lambda p: p.addoption("x"), r"'x' is not an option name"),
        (lambda p: p.addoption("--x", action="store_const"), r"action 'store_const' is not one of"),
        (lambda p: p.add_section("loose", type("Loose", (BaseModel,), {})), r"must refuse unknown keys"),
        (lambda p: p.add_section("nothing", dict), r"must be a pydantic model"),
        (lambda p: p.add_section("nameless", "shipping.Shipping"), r"where it is as 'package.module:Model'"),
    ],
)
def test_a_wrong_declaration_says_what_is_wrong(declare: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        declare(Parser())


def test_a_file_key_two_plugins_declare_names_both() -> None:
    parser = Parser()
    parser.add_section("shipping", Shipping)
    with pytest.raises(UsageError, match=rf"trailblaze.yaml key 'shipping' is declared twice: by {HERE} and by {HERE}"):
        parser.addini("shipping", "again")


def test_a_plugin_key_that_is_trailblazes_own_is_an_error(tmp_path: Path) -> None:
    class Greedy:
        @trailblaze.hookimpl
        def trailblaze_addoption(self, parser: Parser) -> None:
            parser.addini("timeout", "mine now")

    (tmp_path / "trailblaze.yaml").write_text("timeout: 3\n", encoding="utf-8")
    manager = get_plugin_manager(autoload=False)
    manager.pm.register(Greedy())
    with pytest.raises(UsageError, match=r"declares trailblaze.yaml key 'timeout', which is trailblaze's own"):
        load_project(tmp_path / "trailblaze.yaml", plugins=manager)


def test_configure_reads_options_settings_and_sections(tmp_path: Path) -> None:
    (tmp_path / "trailblaze.yaml").write_text("warehouse: south\nshipping: {carrier: dhl}\n", encoding="utf-8")
    plugin = ShippingPlugin()
    manager = get_plugin_manager(autoload=False)
    manager.pm.register(plugin)
    load_project(tmp_path / "trailblaze.yaml", plugins=manager, options={"ship_to": "Ada", "signal": 2})
    assert plugin.seen == {
        "ship_to": "Ada",
        "by name": "Ada",
        "express": False,
        "parcel": [],
        "signal": 2,
        "warehouse": "south",
        "shipping": {"carrier": "dhl", "parcels": 1},
        "declares": True,
    }


def test_a_section_that_is_absent_is_its_models_defaults(tmp_path: Path) -> None:
    (tmp_path / "trailblaze.yaml").write_text("timeout: 3\n", encoding="utf-8")
    plugin = ShippingPlugin()
    manager = get_plugin_manager(autoload=False)
    manager.pm.register(plugin)
    project = load_project(tmp_path / "trailblaze.yaml", plugins=manager)
    assert plugin.seen["shipping"] == {"carrier": "post", "parcels": 1}
    assert plugin.seen["declares"] is False and plugin.seen["warehouse"] == "north"
    with pytest.raises(ValueError, match="no option named 'nope'"):
        project.config.getoption("nope")
    assert project.config.getoption("nope", "fallback") == "fallback"
    with pytest.raises(ValueError, match="no section named 'nope'"):
        project.config.section("nope")


def test_a_sections_keys_are_checked_with_their_location(tmp_path: Path) -> None:
    path = tmp_path / "trailblaze.yaml"
    path.write_text("shipping:\n  carier: dhl\n  parcels: many\nshiping: {}\n", encoding="utf-8")
    manager = get_plugin_manager(autoload=False)
    manager.pm.register(ShippingPlugin())
    with pytest.raises(ErrorList) as info:
        load_project(path, plugins=manager)
    lines = str(info.value).splitlines()
    assert (
        lines[0]
        == f"{path}:2:3: shipping.carier: unknown key (did you mean 'carrier'? expected one of: carrier, parcels)"
    )
    assert (
        lines[1]
        == f"{path}:3:12: shipping.parcels: input should be a valid integer, unable to parse string as an integer"
    )
    assert lines[2].startswith(f"{path}:4:1: shiping: unknown key (did you mean 'shipping'? expected one of: ")
    path.write_text("shipping: [dhl, ups]\n", encoding="utf-8")
    with pytest.raises(ErrorList) as info:
        load_project(path, plugins=manager)
    # in the file's words, not the plugin's class name
    assert str(info.value) == f"{path}:1:11: shipping: expected a mapping (key: value), got a list"


SHIPPING_MODEL = """
from pydantic import BaseModel, ConfigDict


class Shipping(BaseModel):
    model_config = ConfigDict(extra="forbid")

    carrier: str = "post"
    parcels: int = 1


class Loose(BaseModel):
    carrier: str = "post"
"""


def test_a_section_declared_by_name_is_imported_only_when_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``add_section(name, "package.module:Model")``: a file without the section does not import
    the model's module; one with it is checked as with the model itself, with its location."""
    (tmp_path / "lazy_shipping.py").write_text(SHIPPING_MODEL, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazy_shipping", raising=False)

    class Plugin:
        @trailblaze.hookimpl
        def trailblaze_addoption(self, parser: Parser) -> None:
            parser.add_section("shipping", "lazy_shipping:Shipping")
            parser.add_section("loose", "lazy_shipping:Loose")
            parser.add_section("missing", "lazy_shipping:Nowhere")

    def load() -> Any:
        manager = get_plugin_manager(autoload=False)
        manager.pm.register(Plugin())
        return load_project(path, plugins=manager)

    path = tmp_path / "trailblaze.yaml"
    path.write_text("timeout: 3\n", encoding="utf-8")
    project = load()
    assert "lazy_shipping" not in sys.modules
    assert project.config.section("shipping").model_dump() == {"carrier": "post", "parcels": 1}
    assert "lazy_shipping" in sys.modules

    monkeypatch.delitem(sys.modules, "lazy_shipping")
    path.write_text("shipping:\n  carier: dhl\n  parcels: many\n", encoding="utf-8")
    with pytest.raises(ErrorList) as info:
        load()
    assert str(info.value).splitlines() == [
        f"{path}:2:3: shipping.carier: unknown key (did you mean 'carrier'? expected one of: carrier, parcels)",
        f"{path}:3:12: shipping.parcels: input should be a valid integer, unable to parse string as an integer",
    ]
    path.write_text("shipping: {carrier: dhl}\n", encoding="utf-8")
    assert load().config.section("shipping").carrier == "dhl"
    # what is wrong with the declaration is said when the model is needed
    path.write_text("loose: {}\n", encoding="utf-8")
    with pytest.raises(TypeError, match=rf"add_section\('loose', Loose\) from {HERE}.*must refuse unknown keys"):
        load()
    with pytest.raises(TypeError, match=r"add_section\('missing', 'lazy_shipping:Nowhere'\).*has no Nowhere"):
        project.config.section("missing")


PLUGIN_MODULE = """
import trailblaze
from pydantic import BaseModel, ConfigDict


class Stamp(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = "stamped"


@trailblaze.hookimpl
def trailblaze_addoption(parser):
    parser.getgroup("stamping", "Stamping").addoption("--stamp", metavar="FILE", help="Write a stamp here.")
    parser.add_section("stamp", Stamp)


@trailblaze.hookimpl
def trailblaze_configure(config):
    path = config.getoption("stamp")
    if path:
        with open(path, "w") as out:
            out.write(config.command + " " + config.section("stamp").text)
"""


def test_plugin_options_are_command_line_options_of_run_and_record(
    cli: CliRunner, project: Project, tmp_path: Path
) -> None:
    project.write("stamper.py", PLUGIN_MODULE)
    project.write("trailblaze.yaml", "plugins: [stamper]\nstamp: {text: hello}\n")
    env = {"PYTHONPATH": str(tmp_path)}
    help_text = cli("run", "--help", env=env).stdout
    assert "Stamping:" in help_text and "--stamp FILE  Write a stamp here." in help_text
    assert "--stamp" in cli("record", "--help", env=env).stdout
    assert "--stamp" not in cli("validate", "--help", env=env).stdout
    result = cli("validate", "--stamp", "x", env=env)
    assert result.returncode == 3 and "No such option '--stamp'" in result.stderr
    project.trail("t", "trail:\n  - step: Open\n    recording:\n      web: [{web_navigate: {url: /}}]\n")
    assert cli("run", "--stamp", "s.txt", "--driver", "nope", env=env).returncode == 3
    assert (tmp_path / "s.txt").read_text() == "run hello"  # configured before the run was refused


def test_options_of_a_plugin_named_with_p_after_the_command(cli: CliRunner, project: Project, tmp_path: Path) -> None:
    project.write("stamper.py", PLUGIN_MODULE)
    env = {"PYTHONPATH": str(tmp_path)}
    for args in (["run", "-p", "stamper"], ["run", "-pstamper"], ["-p", "stamper", "run"]):
        assert "--stamp FILE" in cli(*args, "--help", env=env).stdout, args
    project.write("elsewhere.yaml", "plugins: [stamper]\n")
    assert "--stamp FILE" in cli("run", "-c", "elsewhere.yaml", "--help", env=env).stdout
    assert "--stamp FILE" in cli("run", "--config=elsewhere.yaml", "--help", env=env).stdout
    assert "--stamp" not in cli("run", "--help", env=env).stdout


def test_the_listing_of_plugins_shows_the_hook(cli: CliRunner, project: Project, tmp_path: Path) -> None:
    project.write("stamper.py", textwrap.dedent(PLUGIN_MODULE))
    rows = {
        r["name"]: r
        for r in json.loads(cli("plugins", "--json", "-p", "stamper", env={"PYTHONPATH": str(tmp_path)}).stdout)
    }
    assert rows["stamper"]["hooks"] == ["trailblaze_addoption", "trailblaze_configure"]
