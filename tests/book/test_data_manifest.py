"""Every stored dataset regenerates bit for bit from its generator and seed."""

from __future__ import annotations

import json

from kperc_book import data


def test_stored_datasets_match_their_regeneration():
    assert data.verify_all() == []


def test_regenerating_into_a_fresh_folder_gives_the_same_files(tmp_path):
    fresh = data.write_all(tmp_path)
    stored = data.manifest()
    assert set(fresh) == set(stored) == set(data.REGISTRY)
    for name, entry in fresh.items():
        assert entry["sha256"] == stored[name]["sha256"], name
        assert (tmp_path / entry["file"]).read_bytes() == (
            data.DATA_DIR / entry["file"]
        ).read_bytes(), name
    assert json.loads((tmp_path / "manifest.json").read_text()) == json.loads(
        (data.DATA_DIR / "manifest.json").read_text()
    )


def test_a_tampered_file_is_detected(tmp_path):
    data.write_all(tmp_path)
    victim = sorted(data.REGISTRY)[0]
    path = tmp_path / f"{victim}.npz"
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 0xFF
    path.write_bytes(bytes(blob))
    problems = data.verify_all(tmp_path)
    assert problems and all(victim in p for p in problems)


def test_a_truncated_manifest_is_a_one_line_error(tmp_path, capsys):
    import pytest

    data.write_all(tmp_path)
    path = tmp_path / "manifest.json"
    path.write_text(path.read_text()[:200])  # as a killed write would leave it
    with pytest.raises(data.ManifestError, match=r"manifest.json is not valid JSON \(truncated"):
        data.manifest(tmp_path)
    with pytest.raises(data.ManifestError, match="git checkout data/manifest.json"):
        data.load(sorted(data.REGISTRY)[0], tmp_path)
    assert data.main(["--check", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    path.write_text("[]")
    with pytest.raises(data.ManifestError, match="no 'datasets' table"):
        data.manifest(tmp_path)
