"""The distributions themselves (issue 24 item 3): the sdist and the wheel as ``python -m build``
makes them, offline (``--no-isolation``: the build backend of the development environment).

The sdist must carry the whole test suite (every file under ``tests/``: the tests, their
``conftest.py`` files, helpers, data and goldens), so that its tests run from it; the wheel
must carry the LICENSE, the metadata pyproject.toml declares and every shipped resource.
"""

from __future__ import annotations

import email
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.message import Message
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
NAME_VERSION = f"{PROJECT['name']}-{PROJECT['version']}"

pytestmark = pytest.mark.slow  # a build takes seconds

# what a checkout holds that is not source: environments, caches, build and run outputs
_NOT_SOURCE_AT_ROOT = {".venv", ".git", "build", "dist", "out", "runs"}
_NOT_SOURCE = shutil.ignore_patterns(
    "__pycache__", "*.py[cod]", "*.egg-info", ".mypy_cache", ".ruff_cache", ".pytest_cache"
)


def _source_files(folder: Path) -> set[str]:
    """The files under ``folder`` (relative to the root) that a fresh clone holds."""
    return {
        path.relative_to(ROOT).as_posix()
        for path in folder.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and ".hypothesis" not in path.parts
        and path.suffix != ".pyc"
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(sdist, wheel) built from a copy of the tree (a build writes into its source tree),
    the wheel from the sdist, as ``python -m build`` does."""
    work = tmp_path_factory.mktemp("build")
    source = work / "source"

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = set(_NOT_SOURCE(folder, names))
        if Path(folder) == ROOT:
            skipped |= _NOT_SOURCE_AT_ROOT & set(names)
        return skipped

    shutil.copytree(ROOT, source, ignore=ignore)
    dist = work / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return dist / f"{NAME_VERSION}.tar.gz", dist / f"{NAME_VERSION}-py3-none-any.whl"


def test_sdist_carries_the_whole_test_suite(built: tuple[Path, Path]) -> None:
    sdist, _ = built
    with tarfile.open(sdist) as archive:
        carried = {
            name.removeprefix(f"{NAME_VERSION}/")
            for name in archive.getnames()
            if archive.getmember(name).isfile()
        }
    suite = _source_files(ROOT / "tests")
    assert {"tests/conftest.py", "tests/data/replay_tiny.swf"} <= suite  # the oracle sees them
    assert sum(1 for name in suite if Path(name).name.startswith("test_")) > 70
    assert suite - carried == set()
    # and what running it needs: the package, its configuration and the shipped data
    assert {"pyproject.toml", "LICENSE", "emulator/cli.py"} <= carried
    assert _source_files(ROOT / "resources") <= carried


def _metadata(wheel: zipfile.ZipFile) -> Message:
    return email.message_from_bytes(wheel.read(f"{NAME_VERSION}.dist-info/METADATA"))


def test_wheel_carries_license_metadata_and_resources(built: tuple[Path, Path]) -> None:
    _, wheel_path = built
    with zipfile.ZipFile(wheel_path) as wheel:
        names = set(wheel.namelist())
        license_text = wheel.read(f"{NAME_VERSION}.dist-info/licenses/LICENSE")
        metadata = _metadata(wheel)
        entry_points = wheel.read(f"{NAME_VERSION}.dist-info/entry_points.txt").decode()
    assert license_text == (ROOT / "LICENSE").read_bytes()
    assert metadata["License-Expression"] == PROJECT["license"]
    assert metadata["Author"] == PROJECT["authors"][0]["name"]
    assert metadata["Keywords"] == ",".join(PROJECT["keywords"])
    assert metadata.get_all("Classifier") == PROJECT["classifiers"]
    urls = metadata.get_all("Project-URL") or []
    assert urls == [f"{label}, {url}" for label, url in PROJECT.get("urls", {}).items()]
    assert metadata["Requires-Python"] == PROJECT["requires-python"]
    readme = (ROOT / PROJECT["readme"]).read_text(encoding="utf-8")
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert str(metadata.get_payload()).strip() == readme.strip()
    # every shipped platform, command file, workload and sweep spec (and the platforms' guide)
    resources = _source_files(ROOT / "resources")
    assert {"resources/platforms/README.md", "resources/workloads/kth-sp2-first-2000.swf.gz"} <= (
        resources
    )
    assert resources - names == set()
    assert "batchlab = emulator.cli:main" in entry_points
    assert not any(name.startswith(("tests/", "bench/")) for name in names)
