"""Loading skills from directories: valid skills, invalid front matter, unsafe paths, caps."""

from __future__ import annotations

import io
import logging
import os
import stat
import zipfile
from pathlib import Path

import pytest
from blockbuster import BlockBuster
from pydantic import ValidationError

from adk_runtime import skills
from adk_runtime.errors import ConfigurationError
from adk_runtime.skills import (
    Frontmatter,
    InvalidSkillError,
    SkillNotFoundError,
    SkillTooLargeError,
    UnsafeSkillPathError,
    _files,
    _utils,
    list_skills_in_dir,
    load_skill_from_dir,
    load_skills_from_dir,
)
from adk_runtime.skills.prompt import format_skills_as_xml
from tests.skills.skill_dirs import write_skill

PNG = b"\x89PNG\r\n\x1a\n\x00\xff\xfe"


def test_a_valid_skill_loads_with_its_resources(tmp_path: Path) -> None:
    root = write_skill(
        tmp_path,
        "pdf-forms",
        extra_front="license: MIT\nallowed-tools: read write\nmetadata:\n  owner: docs\n",
        files={
            "references/guide.md": "# Guide",
            "references/deep/notes.md": "notes",
            "references/__pycache__/x.pyc": b"\x00",
            "assets/logo.png": PNG,
            "scripts/fill.py": "print('filled')",
        },
    )
    skill = load_skill_from_dir(root)
    assert skill.name == "pdf-forms"
    assert skill.description == "Fills PDF forms."
    assert skill.instructions == "Step 1: read references/guide.md."
    assert skill.frontmatter.license == "MIT"
    assert skill.frontmatter.allowed_tools == "read write"
    assert skill.frontmatter.metadata == {"owner": "docs"}
    assert skill.resources.references == {"guide.md": "# Guide", "deep/notes.md": "notes"}
    assert skill.resources.get_asset("logo.png") == PNG  # not UTF-8: kept as bytes
    script = skill.resources.get_script("fill.py")
    assert script is not None
    assert str(script) == "print('filled')"
    assert skill._uri == root.resolve().as_uri()


def test_load_skills_from_dir_loads_every_skill_in_name_order(tmp_path: Path) -> None:
    write_skill(tmp_path, "zeta")
    write_skill(tmp_path, "alpha")
    (tmp_path / "not-a-skill").mkdir()
    (tmp_path / "README.md").write_text("hi", encoding="utf-8")
    assert [s.name for s in load_skills_from_dir(tmp_path)] == ["alpha", "zeta"]
    with pytest.raises(SkillNotFoundError):
        load_skills_from_dir(tmp_path / "missing")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("name: x\n", "must start with YAML front matter"),
        ("---\nname: x\ndescription: d\n", "not closed"),
        ("---\nname: [x\n---\nbody", "Invalid YAML"),
        ("---\n- a\n- b\n---\nbody", "must be a YAML mapping"),
        ("---\nname: Bad_Name\ndescription: d\n---\n", "kebab-case"),
        ("---\nname: bad\ndescription: ''\n---\n", "must not be empty"),
        ("---\nname: bad\n---\n", "description"),
        ("---\nname: bad\ndescription: d\nmetadata:\n  adk_inject_state: 'yes'\n---\n", "bool"),
        ("---\nname: bad\ndescription: d\nmetadata:\n  adk_additional_tools: t\n---\n", "list"),
    ],
)
def test_invalid_front_matter_is_refused(tmp_path: Path, text: str, reason: str) -> None:
    root = tmp_path / "bad"
    root.mkdir()
    (root / "SKILL.md").write_text(text, encoding="utf-8")
    with pytest.raises(InvalidSkillError, match=reason):
        load_skill_from_dir(root)


def test_errors_name_fields_never_values(tmp_path: Path) -> None:
    secret = "TOP-SECRET-" + "x" * 1100
    root = write_skill(tmp_path, "leaky", description=secret)
    with pytest.raises(InvalidSkillError) as caught:
        load_skill_from_dir(root)
    assert "description" in str(caught.value)
    assert "TOP-SECRET" not in str(caught.value)


def test_yaml_aliases_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "bomb"
    root.mkdir()
    (root / "SKILL.md").write_text(
        "---\nname: bomb\ndescription: d\nmetadata:\n  a: &a [1, 2]\n  b: [*a, *a]\n---\nx",
        encoding="utf-8",
    )
    with pytest.raises(InvalidSkillError, match="aliases"):
        load_skill_from_dir(root)


def test_yaml_tags_are_never_constructed(tmp_path: Path) -> None:
    root = tmp_path / "tagged"
    root.mkdir()
    (root / "SKILL.md").write_text(
        "---\nname: tagged\ndescription: !!python/object/apply:os.system ['true']\n---\n",
        encoding="utf-8",
    )
    with pytest.raises(InvalidSkillError, match="Invalid YAML"):
        load_skill_from_dir(root)


def test_the_name_must_match_the_directory(tmp_path: Path) -> None:
    root = write_skill(tmp_path, "pdf-forms")
    root.rename(tmp_path / "other")
    with pytest.raises(InvalidSkillError, match="does not match directory"):
        load_skill_from_dir(tmp_path / "other")
    with pytest.raises(SkillNotFoundError):
        load_skill_from_dir(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SkillNotFoundError, match=r"SKILL\.md not found"):
        load_skill_from_dir(tmp_path / "empty")


def test_a_symlink_leaving_the_skill_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("password", encoding="utf-8")
    root = write_skill(tmp_path / "skills", "pdf-forms", files={"references/ok.md": "ok"})
    (root / "references" / "leak.md").symlink_to(outside)
    with pytest.raises(UnsafeSkillPathError, match=r"leak\.md"):
        load_skill_from_dir(root)


def test_a_symlinked_folder_leaving_the_skill_is_refused(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "passwd").write_text("root", encoding="utf-8")
    root = write_skill(tmp_path / "skills", "pdf-forms")
    (root / "assets").symlink_to(tmp_path / "etc")
    with pytest.raises(UnsafeSkillPathError):
        load_skill_from_dir(root)
    (root / "assets").unlink()
    (root / "references").mkdir()
    (root / "references" / "up").symlink_to(tmp_path / "etc")
    with pytest.raises(UnsafeSkillPathError):
        load_skill_from_dir(root)


def test_a_skill_md_symlink_leaving_the_skill_is_refused(tmp_path: Path) -> None:
    elsewhere = write_skill(tmp_path / "elsewhere", "pdf-forms")
    root = tmp_path / "skills" / "pdf-forms"
    root.mkdir(parents=True)
    (root / "SKILL.md").symlink_to(elsewhere / "SKILL.md")
    with pytest.raises(UnsafeSkillPathError):
        load_skill_from_dir(root)


def test_a_symlink_inside_the_skill_is_read(tmp_path: Path) -> None:
    root = write_skill(tmp_path, "pdf-forms", files={"references/guide.md": "# Guide"})
    (root / "assets").mkdir()
    (root / "assets" / "guide-copy.md").symlink_to(root / "references" / "guide.md")
    assert load_skill_from_dir(root).resources.assets == {"guide-copy.md": "# Guide"}


def test_a_skill_directory_linked_from_outside_the_base_is_refused(tmp_path: Path) -> None:
    outside = write_skill(tmp_path / "outside", "linked")
    base = tmp_path / "skills"
    write_skill(base, "local")
    (base / "linked").symlink_to(outside)
    with pytest.raises(UnsafeSkillPathError, match="linked"):
        load_skills_from_dir(base)
    problems: list[str] = []
    listed = list_skills_in_dir(base, on_error=lambda skill_id, exc: problems.append(skill_id))
    assert list(listed) == ["local"]
    assert problems == ["linked"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_special_files_are_refused_without_blocking(tmp_path: Path) -> None:
    root = write_skill(tmp_path, "pdf-forms")
    (root / "assets").mkdir()
    os.mkfifo(root / "assets" / "pipe")
    with pytest.raises(UnsafeSkillPathError, match="not a regular file"):
        load_skill_from_dir(root)


def test_files_over_the_size_cap_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_skill(tmp_path, "pdf-forms", files={"assets/big.bin": PNG * 200})
    monkeypatch.setattr(_files, "MAX_FILE_BYTES", 1024)
    with pytest.raises(SkillTooLargeError, match=r"big\.bin"):
        load_skill_from_dir(root)
    monkeypatch.setattr(_files, "MAX_FILE_BYTES", 4096)
    assert load_skill_from_dir(root).resources.get_asset("big.bin") == PNG * 200
    monkeypatch.setattr(_files, "MAX_SKILL_BYTES", 1024)
    with pytest.raises(SkillTooLargeError, match="in all"):
        load_skill_from_dir(root)


def test_the_file_count_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_skill(tmp_path, "pdf-forms", files={f"references/{i}.md": "x" for i in range(4)})
    monkeypatch.setattr(_files, "MAX_FILES", 3)
    with pytest.raises(SkillTooLargeError, match="3 resource files"):
        load_skill_from_dir(root)


@pytest.mark.parametrize(
    "path", ["../x", "a/../../x", "/etc/passwd", "C:\\x", "\\\\server\\share", "", "."]
)
def test_unsafe_relative_paths_are_refused(path: str) -> None:
    with pytest.raises(UnsafeSkillPathError):
        _utils._validate_relative_resource_path(path)


def test_safe_relative_paths_are_normalized() -> None:
    assert _utils._validate_relative_resource_path("a\\b.md") == "a/b.md"
    assert _utils._validate_relative_resource_path("./a/b.md") == "a/b.md"


def test_listing_reads_front_matter_and_skips_invalid_skills(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_skill(tmp_path, "good", files={"assets/huge.bin": b"\x00"})
    write_skill(tmp_path, "mismatch").rename(tmp_path / "renamed")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "SKILL.md").write_text("no front matter", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        listed = list_skills_in_dir(tmp_path)
    assert list(listed) == ["good"]
    assert isinstance(listed["good"], Frontmatter)
    assert "renamed" in caplog.text
    assert "broken" in caplog.text
    assert list_skills_in_dir(tmp_path / "missing") == {}

    def stop(skill_id: str, error: Exception) -> None:
        raise RuntimeError(skill_id)

    with pytest.raises(RuntimeError, match="broken"):
        list_skills_in_dir(tmp_path, on_error=stop)


@pytest.fixture
def one_skill(tmp_path: Path) -> Path:
    write_skill(tmp_path, "pdf-forms", files={"references/guide.md": "# Guide"})
    return tmp_path


async def test_async_loaders_keep_file_io_off_the_loop(
    one_skill: Path, blockbuster: BlockBuster
) -> None:
    tmp_path = one_skill
    skill = await skills.load_skill_from_dir_async(tmp_path / "pdf-forms")
    assert skill.resources.get_reference("guide.md") == "# Guide"
    assert [s.name for s in await skills.load_skills_from_dir_async(tmp_path)] == ["pdf-forms"]
    assert list(await skills.list_skills_in_dir_async(tmp_path)) == ["pdf-forms"]


async def test_the_blocking_loader_on_the_loop_is_caught(
    one_skill: Path, blockbuster: BlockBuster
) -> None:
    with pytest.raises(Exception, match=r"[Bb]locking"):
        load_skill_from_dir(one_skill / "pdf-forms")


async def test_cloud_storage_loaders_refuse_clearly() -> None:
    with pytest.raises(ConfigurationError, match="Google Cloud Storage is not supported"):
        skills.load_skill_from_gcs_dir("bucket", "pdf-forms")
    with pytest.raises(ConfigurationError):
        skills.list_skills_in_gcs_dir("bucket")
    with pytest.raises(ConfigurationError):
        await skills.load_skill_from_gcs_dir_async("bucket", "pdf-forms")
    with pytest.raises(ConfigurationError):
        await skills.list_skills_in_gcs_dir_async("bucket")


def test_frontmatter_name_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Frontmatter(name="pdf-forms-2", description="d").name == "pdf-forms-2"
    assert Frontmatter.model_validate({"name": "a", "description": "d", "allowed-tools": "x"})
    for bad in ["-a", "a-", "a--b", "A", "a_b", "a" * 65, "a&b"]:
        with pytest.raises(ValidationError):
            Frontmatter(name=bad, description="d")
    monkeypatch.setenv("ADK_ENABLE_SNAKE_CASE_SKILL_NAME", "1")
    assert Frontmatter(name="pdf_forms", description="d").name == "pdf_forms"
    with pytest.raises(ValidationError, match="Mixing hyphens and underscores"):
        Frontmatter(name="pdf_forms-x", description="d")


def test_frontmatter_serializes_allowed_tools_with_its_yaml_key() -> None:
    front = Frontmatter.model_validate(
        {"name": "a", "description": "d", "allowed_tools": "x y", "extra_key": 1}
    )
    dumped = front.model_dump(by_alias=True)
    assert dumped["allowed-tools"] == "x y"
    assert dumped["extra_key"] == 1


def test_the_catalog_escapes_names_and_descriptions() -> None:
    xml = format_skills_as_xml([Frontmatter(name="a", description="uses <b> & </skill>")])
    assert "uses &lt;b&gt; &amp; &lt;/skill&gt;" in xml
    assert xml.startswith("<available_skills>")
    assert xml.endswith("</available_skills>")
    assert format_skills_as_xml([]) == "<available_skills>\n</available_skills>"


MANIFEST = "---\nname: zipped\ndescription: From an archive.\n---\nDo the zipped thing.\n"


def zipped(entries: dict[str, str | bytes], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        if symlink is not None:
            link = zipfile.ZipInfo(symlink)
            link.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(link, "/etc/passwd")
    return buffer.getvalue()


def test_a_skill_loads_from_zip_bytes() -> None:
    skill = _utils._load_skill_from_zip_bytes(
        zipped(
            {
                "SKILL.md": MANIFEST,
                "references/guide.md": "# guide",
                "references/deep/notes.md": "notes",
                "assets/logo.png": PNG,
                "scripts/run.py": "print('hi')",
                "scripts/__pycache__/run.cpython-311.pyc": b"\x00",
                "README.txt": "not a resource",
            }
        )
    )
    assert (skill.name, skill.instructions) == ("zipped", "Do the zipped thing.")
    assert skill.resources.get_reference("deep/notes.md") == "notes"
    assert skill.resources.get_asset("logo.png") == PNG
    assert skill.resources.get_script("run.py") is not None
    assert skill.resources.list_scripts() == ["run.py"]


@pytest.mark.parametrize(
    ("entries", "symlink", "error"),
    [
        ({"SKILL.md": MANIFEST, "../evil.md": "x"}, None, UnsafeSkillPathError),
        ({"SKILL.md": MANIFEST, "/etc/cron.d/evil": "x"}, None, UnsafeSkillPathError),
        ({"SKILL.md": MANIFEST, "references/..\\..\\evil": "x"}, None, UnsafeSkillPathError),
        ({"SKILL.md": MANIFEST}, "references/link", UnsafeSkillPathError),
        ({"references/guide.md": "x"}, None, SkillNotFoundError),
        ({"SKILL.md": "no front matter"}, None, InvalidSkillError),
        ({"SKILL.md": b"---\xff\xfe"}, None, InvalidSkillError),
    ],
)
def test_unsafe_or_broken_archives_are_refused(
    entries: dict[str, str | bytes], symlink: str | None, error: type[Exception]
) -> None:
    with pytest.raises(error):
        _utils._load_skill_from_zip_bytes(zipped(entries, symlink=symlink))


def test_archives_over_the_limits_are_refused_before_expanding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(InvalidSkillError, match="not a readable zip"):
        _utils._load_skill_from_zip_bytes(b"PK\x03\x04 not really")
    bomb = zipped({"SKILL.md": MANIFEST, "assets/zeros.bin": b"\x00" * 200_000})
    monkeypatch.setattr(_utils, "MAX_FILE_BYTES", 100_000)
    with pytest.raises(SkillTooLargeError, match=r"zeros\.bin"):
        _utils._load_skill_from_zip_bytes(bomb)
    monkeypatch.setattr(_utils, "MAX_FILE_BYTES", 1_000_000)
    monkeypatch.setattr(_utils, "MAX_SKILL_BYTES", 150_000)
    with pytest.raises(SkillTooLargeError, match="in all"):
        _utils._load_skill_from_zip_bytes(bomb)
    monkeypatch.setattr(_utils, "MAX_FILES", 1)
    many = zipped({"SKILL.md": MANIFEST, **{f"references/{i}.md": "x" for i in range(5)}})
    with pytest.raises(SkillTooLargeError, match="files"):
        _utils._load_skill_from_zip_bytes(many)
