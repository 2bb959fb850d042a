"""What a package index and a source distribution show (issue 24 item 3): a license, complete
metadata, a description that needs no repository, and an sdist with the whole test suite."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_license_and_metadata() -> None:
    assert PROJECT["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert PROJECT["license-files"] == ["LICENSE"]
    assert PROJECT["authors"] and PROJECT["keywords"]
    assert any(
        c.startswith("Programming Language :: Python :: 3.11") for c in PROJECT["classifiers"]
    )
    assert "urls" not in PROJECT  # no host of ours to point to


def test_package_description_is_self_contained() -> None:
    """An index shows the description without the repository: no relative link or picture,
    and every file it names is in the source distribution."""
    text = (ROOT / PROJECT["readme"]).read_text(encoding="utf-8")
    assert not re.search(r"\]\((?!https?:)", text)
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    for named in re.findall(r"`((?:docs/)?[\w./-]+\.md|LICENSE)`", text):
        assert (ROOT / named).exists(), named
        assert named.split("/")[0] in manifest, named


def test_sdist_carries_the_whole_test_suite() -> None:
    lines = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    assert "graft tests" in lines  # conftest.py files, data and goldens with the tests
    assert not any(line.startswith(("prune tests", "exclude tests")) for line in lines)
