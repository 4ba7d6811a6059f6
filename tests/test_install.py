"""yahtzee.install: one uv install (pip when uv cannot be had), a virtualenv with no pip to unpack, progress lines."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from yahtzee import install


def test_pips_version_is_read_from_its_metadata(tmp_path: Path) -> None:
    assert install.version_of("23.2.1\n") == (23, 2, 1) and install.version_of("26.3") == (26, 3)
    assert install.version_of("") == ()
    ours = install.pip_version(sys.executable)  # this process's own: no pip started
    try:
        installed = install.version_of(metadata.version("pip"))
    except metadata.PackageNotFoundError:  # a virtualenv uv installed into has no pip of its own
        installed = ()
    assert ours == installed and (ours >= (20,) or ours == ())
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    assert install.pip_version(str(tmp_path / "bare" / "bin" / "python")) == ()
    assert install.pip_version(str(tmp_path / "nowhere" / "python")) == ()


def test_make_run_installs_the_servers_dependencies_and_make_test_the_project_with_its_dev_extra() -> None:
    project = tomllib.loads((install.ROOT / "pyproject.toml").read_text())["project"]
    assert install.requirements(dev=False) == project["dependencies"]
    assert install.requirements(dev=True) == ["-e", f"{install.ROOT}[dev]"]


def make_dry_run(where: Path, target: str, *stamps: str) -> str:
    """What ``make -n target`` would run in a copy of the project's Makefile and pyproject.toml,
    with ``stamps`` (under .venv) made after pyproject.toml: installed as those stamps say."""
    for name in ("Makefile", "pyproject.toml"):
        (where / name).write_bytes((install.ROOT / name).read_bytes())
    (where / ".venv").mkdir()
    for stamp in stamps:
        (where / ".venv" / stamp).touch()
    later = (where / "pyproject.toml").stat().st_mtime + 10
    for stamp in stamps:
        os.utime(where / ".venv" / stamp, (later, later))
    done = subprocess.run(
        ["make", "-n", "-C", str(where), target, "PYTHON=python3"], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_make_messages_installs_only_what_extracting_needs_and_only_into_a_venv_without_it(tmp_path: Path) -> None:
    """``make messages`` needs Django in .venv, as ``make run`` does: a fresh clone gets the server's
    packages first; a venv ``make run`` set up extracts at once, without the tools ``make test`` installs."""
    (tmp_path / "fresh").mkdir()
    fresh = make_dry_run(tmp_path / "fresh", "messages")
    assert "yahtzee.install --venv .venv" in fresh and "--dev" not in fresh
    assert fresh.index("yahtzee.install") < fresh.index("makemessages")
    for stamps in ((".installed-run",), (".installed", ".installed-run")):
        where = tmp_path / "-".join(stamps)
        where.mkdir()
        ran = make_dry_run(where, "messages", *stamps)
        assert "yahtzee.install" not in ran and "makemessages" in ran


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    """Fake pips: the base Python's and the virtualenv's versions, and the commands run."""
    seen: dict[str, Any] = {"base": (23, 2, 1), "venv": (), "bundled": (23, 2, 1), "runs": []}
    venv = tmp_path / "venv"

    def pip_version(python: str) -> tuple[int, ...]:
        return seen["venv"] if python == str(venv / "bin" / "python") else seen["base"]

    def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        seen["runs"].append(command)
        if "venv" in command:
            (venv / "bin").mkdir(parents=True)
            (venv / "bin" / "python").touch()
            seen["venv"] = () if "--without-pip" in command else seen["bundled"]
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(install, "pip_version", pip_version)
    monkeypatch.setattr(install.subprocess, "run", run)
    seen["path"] = venv
    return seen


def test_a_new_virtualenv_gets_no_pip_to_unpack_and_its_pip_comes_in_the_one_install(made: dict[str, Any]) -> None:
    venv = made["path"]
    command = install.pip_command(venv, "/usr/bin/python3", dev=False)
    assert made["runs"] == [["/usr/bin/python3", "-m", "venv", "--without-pip", str(venv)]]
    assert command[:5] == ["/usr/bin/python3", "-m", "pip", "--python", str(venv / "bin" / "python")]
    assert command[5:9] == ["install", "--no-compile", "--progress-bar", "off"]
    assert command[9] == "pip>=23.1" and command[10:] == install.requirements(dev=False)


def test_a_virtualenv_with_a_recent_pip_installs_with_it_and_does_not_upgrade_it(made: dict[str, Any]) -> None:
    venv = made["path"]
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    made["venv"] = (26, 3)
    command = install.pip_command(venv, "/usr/bin/python3", dev=True)
    assert made["runs"] == []
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    assert command == [*pip, "install", "--no-compile", "--progress-bar", "off", "-e", f"{install.ROOT}[dev]"]


def test_an_old_pip_is_upgraded_within_the_same_install(made: dict[str, Any]) -> None:
    made["base"] = (21, 0)  # cannot install into another interpreter: the virtualenv gets ensurepip's
    venv = made["path"]
    made["bundled"] = (22, 0)  # what its ensurepip brings
    command = install.pip_command(venv, "/usr/bin/python3", dev=False)
    assert made["runs"] == [["/usr/bin/python3", "-m", "venv", str(venv)]]
    assert command[:3] == [str(venv / "bin" / "python"), "-m", "pip"]
    assert "pip>=23.1" in command and command.count("install") == 1


PIP_OUTPUT = """\
Collecting Django>=5.2
  Downloading django-5.2.19-py3-none-any.whl (8.3 MB)
WARNING: Location 'file:///opt/pypi/simple/channels/' is ignored: it is neither a file nor a directory.
Collecting channels>=4.2
Collecting asgiref<4,>=3.9.0 (from channels>=4.2)
Installing collected packages: asgiref, Django, channels
Successfully installed Django-5.2.19 asgiref-3.13.0 channels-4.3.2
"""


def test_pips_output_becomes_a_few_lines_of_how_far_along_it_is() -> None:
    written: list[tuple[str, bool]] = []
    progress = install.Progress(lambda text, final: written.append((text, final)), lambda: 0, every=0.0)
    progress.feed(PIP_OUTPUT.splitlines(keepends=True))
    assert written == [
        ("  resolving: 1 packages so far", False),
        ("  resolving: 2 packages so far", False),
        ("  resolving: 3 packages so far", False),
        ("  resolved: installing 3 packages", True),
    ]
    assert "".join(progress.lines) == PIP_OUTPUT  # kept, to be shown if pip fails


def run_main(tmp_path: Path, script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    monkeypatch.setattr(install, "pip_command", lambda venv, base, dev: [sys.executable, "-c", script])
    monkeypatch.setenv("YAHTZEE_INSTALLER", "pip")
    code = install.main(["--venv", str(tmp_path / "venv")])
    return code, capsys.readouterr().out


def test_the_install_says_what_it_does_and_when_it_is_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = f"print({PIP_OUTPUT!r}, end='')"
    code, out = run_main(tmp_path, script, monkeypatch, capsys)
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith("Installing the server's packages into ") and "one pip install" in lines[0]
    assert "  resolved: installing 3 packages" in lines
    assert lines[-1].startswith("Done in ") and lines[-1].endswith("s: 3 packages installed.")
    assert "WARNING" not in out  # pip's own output only when it fails


def test_a_failing_pip_shows_its_output_and_its_exit_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = "import sys; print('Collecting nosuchpackage'); print('ERROR: No matching distribution'); sys.exit(3)"
    code, out = run_main(tmp_path, script, monkeypatch, capsys)
    assert code == 3
    assert "ERROR: No matching distribution" in out and "pip failed (exit status 3)" in out


def test_while_pip_unpacks_the_packages_appearing_in_site_packages_are_counted() -> None:
    written: list[tuple[str, bool]] = []
    counts = iter([40, 41, 43])  # site-packages before pip unpacks, then as it does
    last = {"n": 40}

    def installed() -> int:
        last["n"] = next(counts, last["n"])
        return last["n"]

    def pip_output() -> Iterator[str]:
        yield "Installing collected packages: a, b, c\n"
        for _ in range(100):  # pip says nothing until it is done: the count goes on meanwhile
            if ("  installing: 3 of 3", False) in written:
                break
            time.sleep(0.05)
        yield "Successfully installed a-1 b-1 c-1\n"

    progress = install.Progress(lambda text, final: written.append((text, final)), installed, every=0.0)
    progress.feed(pip_output())
    assert written == [
        ("  resolved: installing 3 packages", True),
        ("  installing: 1 of 3", False),
        ("  installing: 3 of 3", False),
    ]


UV_OUTPUT = """Using Python 3.11.7 environment at: .venv
Resolved 3 packages in 412ms
Prepared 3 packages in 1.20s
Installed 3 packages in 35ms
 + asgiref==3.13.0
 + channels==4.3.2
 + django==5.2.19
"""


def test_uvs_output_becomes_its_summary_lines() -> None:
    written: list[tuple[str, bool]] = []
    progress = install.UvProgress(lambda text, final: written.append((text, final)))
    progress.feed(UV_OUTPUT.splitlines(keepends=True))
    assert written == [
        ("  resolved 3 packages in 412ms", True),
        ("  prepared 3 packages in 1.20s", True),
        ("  installed 3 packages in 35ms", True),
    ]
    assert progress.total == 3 and "".join(progress.lines) == UV_OUTPUT


def uv_main(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    uv_script: str | None,
    pip_script: str = "print('Installing collected packages: a'); print('Successfully installed a-1')",
) -> Any:
    monkeypatch.delenv("YAHTZEE_INSTALLER", raising=False)
    uv = None if uv_script is None else [sys.executable, "-c", uv_script]
    monkeypatch.setattr(install, "uv_command", lambda venv, base, dev: uv)
    monkeypatch.setattr(install, "pip_command", lambda venv, base, dev: [sys.executable, "-c", pip_script])
    code = install.main(["--venv", str(tmp_path / "venv")])
    return code, capsys.readouterr().out.splitlines()


def test_the_install_runs_uv_and_says_what_it_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = uv_main(tmp_path, monkeypatch, capsys, f"print({UV_OUTPUT!r}, end='')")
    assert code == 0
    assert lines[0].startswith("Installing the server's packages into ") and "one uv install" in lines[0]
    assert "  installed 3 packages in 35ms" in lines
    assert lines[-1].startswith("Done in ") and lines[-1].endswith("s: 3 packages installed.")
    assert not any("pip" in line for line in lines)  # pip was not needed


def test_without_uv_or_when_uv_fails_pip_installs_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = uv_main(tmp_path, monkeypatch, capsys, None)
    assert code == 0 and "uv could not be installed; installing with pip instead." in lines
    assert lines[-1].endswith("s: 1 packages installed.")

    failing = "import sys; print('error: No solution found'); sys.exit(2)"
    code, lines = uv_main(tmp_path, monkeypatch, capsys, failing)
    assert code == 0
    assert "error: No solution found" in lines  # uv's own output, since it failed
    assert "uv failed (exit status 2); installing with pip instead." in lines
    assert any("one pip install" in line for line in lines) and lines[-1].endswith("s: 1 packages installed.")


def test_uv_is_put_into_the_virtualenv_once_by_pip(made: dict[str, Any]) -> None:
    venv = made["path"]
    assert install.uv_command(venv, "/usr/bin/python3", dev=False) is None  # pip ran, but brought no uv
    assert made["runs"][-1][-1] == "uv" and "install" in made["runs"][-1]
    (venv / "bin" / "uv").touch()
    runs = len(made["runs"])
    command = install.uv_command(venv, "/usr/bin/python3", dev=True)
    assert command == [
        str(venv / "bin" / "uv"),
        "pip",
        "install",
        "--python",
        str(venv / "bin" / "python"),
        *install.requirements(dev=True),
    ]
    assert len(made["runs"]) == runs  # uv already there: nothing installed to get it
