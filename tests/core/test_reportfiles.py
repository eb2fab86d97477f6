"""Report options never write over a file that is not a report of ours, never two reports to one
file, and an option whose value is optional never swallows the trail after it — in the library
(with Hypothesis: whatever our reporters write is recognised, what a trail or a config holds is
not) and through the real command line."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_shard import NULL, null_project

from tests.support.cli import CliRunner
from trailblaze.api.results import RunResult, StepResult, TrailResult
from trailblaze.core.errors import UsageError
from trailblaze.core.reportfiles import HTML_PAGE, JUNIT_XML, RESULTS_JSON, ReportKind, ReportPaths
from trailblaze.pluginmanager import collect_options, get_plugin_manager
from trailblaze.plugins.junit_report import render as junit_render
from trailblaze.reports.html import render

TEXT = st.text(max_size=40)
STATUS = st.sampled_from(["passed", "failed", "error", "skipped", "healed", "incomplete", "flaky"])
TRAILS = st.lists(
    st.builds(
        TrailResult,
        path=TEXT,
        id=TEXT,
        title=TEXT,
        status=STATUS,
        driver=TEXT,
        device=st.none() | TEXT,
        error=st.none() | TEXT,
        steps=st.lists(st.builds(StepResult, index=st.integers(-1, 50), kind=TEXT, text=TEXT, status=STATUS)),
    ),
    max_size=4,
)
RUNS = st.builds(RunResult, trails=TRAILS, duration_ms=st.floats(0, 1e9), interrupted=st.booleans())
KINDS = (RESULTS_JSON, JUNIT_XML, HTML_PAGE)


def written(run: RunResult, kind: ReportKind) -> str:
    """What our reporter of ``kind`` writes for ``run``."""
    import json

    if kind is RESULTS_JSON:
        return json.dumps(run.to_dict(), indent=2, ensure_ascii=False) + "\n"
    if kind is JUNIT_XML:
        return junit_render(run)
    return render(run.to_dict(), title="a <b>long</b> title " * 50)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(RUNS, st.sampled_from(KINDS))
def test_every_report_we_write_is_recognised_as_its_own_kind_only(tmp_path: Path, run: RunResult, kind: object) -> None:
    head = written(run, kind).encode("utf-8")[:4096]  # type: ignore[arg-type]
    assert [k for k in KINDS if k.recognise(head)] == [kind]


TRAIL_LIKE = st.builds(
    lambda key, body: f"{key}:{body}", st.sampled_from(["config", "trail", "appId", "- step", "driver", "#"]), TEXT
)


@settings(max_examples=200)
@given(TRAIL_LIKE | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_what_a_trail_a_flow_or_a_config_holds_is_never_taken_for_a_report(text: str) -> None:
    head = text.encode("utf-8")
    assert not any(kind.recognise(head) for kind in KINDS)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_an_existing_file_of_someone_else_is_refused_and_left_as_it_is(tmp_path: Path, kind: ReportKind) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    with pytest.raises(UsageError, match=f"is not {kind.name} trailblaze wrote, so it is not written over"):
        ReportPaths().claim("--x", other, kind)
    assert other.read_text() == "my notes\n"


def test_an_empty_file_a_device_and_stdout_may_be_written(tmp_path: Path) -> None:
    (tmp_path / "placeholder").touch()  # mktemp's
    paths = ReportPaths()
    paths.claim("--json", tmp_path / "placeholder", RESULTS_JSON)
    paths.claim("--junit", Path(os.devnull), JUNIT_XML)
    paths.claim("--html", Path(os.devnull), HTML_PAGE)  # written into, never replaced: not a clash
    paths.claim("--json", Path("-"), RESULTS_JSON)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="that is a folder"):
        ReportPaths().claim("--html", tmp_path, HTML_PAGE)


@pytest.mark.parametrize("link", ["same", "symlink", "dangling symlink", "hard link", "dot dot"])
def test_two_reports_to_one_file_are_refused_also_through_links(tmp_path: Path, link: str) -> None:
    first = tmp_path / "out" / "report"
    first.parent.mkdir()
    second = {"same": first, "dot dot": tmp_path / "out" / ".." / "out" / "report"}.get(link, tmp_path / "other")
    if link == "symlink":
        first.touch()
        second.symlink_to(first)
    elif link == "dangling symlink":  # neither exists yet: the link's target is the first path
        second.symlink_to(first)
    elif link == "hard link":
        first.touch()
        os.link(first, second)
    paths = ReportPaths()
    paths.claim("--json", first, RESULTS_JSON)
    with pytest.raises(UsageError, match=r"--json .* and --junit .* are one file; give each report a file of its own"):
        paths.claim("--junit", second, JUNIT_XML)


# -- through the command line ------------------------------------------------------------------------


TRAIL = "trails/t00.trail.yaml"


def test_html_before_a_trail_runs_that_trail_and_never_writes_over_it(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 2)
    before = (tmp_path / TRAIL).read_bytes()
    result = cli("run", *NULL, "--html", TRAIL, "--json", "results.json")
    assert result.returncode == 0, result.output
    assert (tmp_path / TRAIL).read_bytes() == before
    assert [t["id"] for t in result.json()["trails"]] == ["t00"]  # that trail only: it was not swallowed
    assert (tmp_path / "trailblaze-report" / "index.html").is_file()


@pytest.mark.parametrize("value", ["report.html", "out/report"])
def test_a_value_after_an_optional_value_option_says_how_to_write_it(
    cli: CliRunner, tmp_path: Path, value: str
) -> None:
    null_project(tmp_path, 1)
    result = cli("run", *NULL, "--html", value, "trails/")
    assert result.returncode == 3
    assert f"--html takes a value only as --html={value}" in result.stderr
    assert not (tmp_path / "trailblaze-report").exists()


#: the commands that write reports
REPORTING = ("run", "record", "merge-reports")


def optional_value_options(commands: tuple[str, ...] = ("run", "record")) -> list[tuple[str, str]]:
    """(command, option) for every built-in option of ``commands`` whose value is optional."""
    parser = collect_options(get_plugin_manager(autoload=False))
    return [(c, name) for c in commands for o in parser.options_for(c) if o.flag_value for name in o.names]


def test_html_is_the_one_optional_value_option() -> None:
    assert optional_value_options(REPORTING) == [("run", "--html"), ("merge-reports", "--html")]


def test_a_report_option_takes_its_path_in_one_form_on_every_command() -> None:
    """`run --html` and `merge-reports --html PATH` once differed: an option is now declared
    once for every command that writes its report, so it cannot again."""
    parser = collect_options(get_plugin_manager(autoload=False))
    declared = {o for c in REPORTING for o in parser.options_for(c) if o.group == "reporting"}
    declarations = Counter(name for o in declared for name in o.names)
    assert [name for name, count in declarations.items() if count > 1] == []
    for command in ("run", "merge-reports"):
        assert {name for o in parser.options_for(command) for name in o.names} >= {"--json", "--junit", "--html"}


@pytest.mark.parametrize(("command", "option"), optional_value_options())
def test_no_optional_value_option_swallows_the_trail_after_it(
    cli: CliRunner, tmp_path: Path, command: str, option: str
) -> None:
    null_project(tmp_path, 2)
    before = (tmp_path / TRAIL).read_bytes()
    result = cli(command, *NULL, option, TRAIL, "--json", "results.json")
    assert (tmp_path / TRAIL).read_bytes() == before, result.output
    assert [t["id"] for t in result.json()["trails"]] == ["t00"]


@pytest.mark.parametrize("command", ["run", "record"])
@pytest.mark.parametrize("target", [TRAIL, "trailblaze.yaml", "flow.yaml", "notes.txt"])
def test_a_report_option_never_writes_over_a_trail_a_flow_a_config_or_another_file(
    cli: CliRunner, tmp_path: Path, command: str, target: str
) -> None:
    null_project(tmp_path, 2)
    (tmp_path / "flow.yaml").write_text("appId: com.example\n---\n- launchApp\n")
    (tmp_path / "notes.txt").write_text("mine\n")
    before = (tmp_path / target).read_bytes()
    options = ["--json"] + (["--junit", "--html="] if command == "run" else [])
    for option in options:
        given = (f"{option}{target}",) if option.endswith("=") else (option, target)
        result = cli(command, *NULL, *given, "trails/")
        assert result.returncode == 3, result.output
        assert f"{target}: the file exists and is not " in result.stderr
        assert "so it is not written over" in result.stderr
        assert (tmp_path / target).read_bytes() == before


def test_reports_are_written_again_over_our_own(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 1)
    (tmp_path / "empty.xml").touch()
    args = ("run", *NULL, "--json", "r.json", "--junit", "empty.xml", "--html=report/index.html")
    assert cli(*args).returncode == 0
    again = cli(*args)
    assert again.returncode == 0, again.output
    assert (tmp_path / "empty.xml").read_text().startswith('<?xml version="1.0" encoding="utf-8"?>\n<testsuites')


@pytest.mark.parametrize(
    ("args", "clash"),
    [
        (("--json", "x", "--junit", "x"), {"--json x", "--junit x"}),
        (("--json", "x", "--html=./x"), {"--json x", "--html x"}),
        (("--json", "x", "--junit", "link-to-x"), {"--json x", "--junit link-to-x"}),
        (("--junit", "out.xml"), {"--junit out.xml", "html.path"}),
    ],
)
def test_two_report_options_on_one_file_are_misuse(
    cli: CliRunner, tmp_path: Path, args: tuple[str, ...], clash: set[str]
) -> None:
    null_project(tmp_path, 1)
    (tmp_path / "link-to-x").symlink_to("x")
    if "out.xml" in args:  # the HTML report trailblaze.yaml asks for goes there too
        (tmp_path / "trailblaze.yaml").write_text("driver: null-test\nhtml: {path: out.xml}\n")
    result = cli("run", *NULL, *args)
    assert result.returncode == 3, result.output
    assert " are one file; give each report a file of its own" in result.stderr
    assert all(option in result.stderr for option in clash), result.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "out.xml").exists()


def test_merge_reports_never_writes_over_a_trail_nor_one_file_twice(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 1)
    assert cli("run", *NULL, "--json", "shard.json").returncode == 0
    before = (tmp_path / TRAIL).read_bytes()
    for args, messages in (
        ((f"--html={TRAIL}",), [f"--html {TRAIL}: the file exists and is not an HTML report trailblaze wrote"]),
        (("--json", "m.json", "--junit", "m.json"), ["--json m.json", "--junit m.json", "are one file"]),
    ):
        result = cli("merge-reports", "shard.json", *args)
        assert result.returncode == 3, result.output
        assert all(message in result.stderr for message in messages), result.stderr
    assert (tmp_path / TRAIL).read_bytes() == before and not (tmp_path / "m.json").exists()


def test_merge_reports_takes_html_as_run_does(cli: CliRunner, tmp_path: Path) -> None:
    null_project(tmp_path, 1)
    assert cli("run", *NULL, "--json", "shard.json").returncode == 0
    spaced = cli("merge-reports", "shard.json", "--html", "report.html")
    assert spaced.returncode == 3
    assert "--html takes a value only as --html=report.html" in spaced.stderr
    assert "report.html would be an input" in spaced.stderr
    assert not (tmp_path / "report.html").exists()
    alone = cli("merge-reports", "--html", "shard.json")  # an input after it stays an input
    assert alone.returncode == 0, alone.output
    assert (tmp_path / "trailblaze-report" / "index.html").is_file()
    attached = cli("merge-reports", "shard.json", "--html=out/merged.html")
    assert attached.returncode == 0, attached.output
    assert (tmp_path / "out" / "merged.html").is_file()
    missing = cli("merge-reports", "--html", "shard-2.json")  # ends as an input does: one, that is missing
    assert missing.returncode == 3 and "shard-2.json" in missing.stderr
    assert "--html=" not in missing.stderr
