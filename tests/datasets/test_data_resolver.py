"""The data resolver, :func:`opendp_graph.datasets.data_path`: every resolution step, downloads
through a local HTTP server (pooch, SHA-256 checked), corrupted and failed downloads (nothing
cached), the download switch, ``opendp-graph data`` and the reproductions without ``--data``.

Most tests use a toy data set registered for the test, so they run on a bare clone; those at the
end download the real data sets from a local mirror of the resolved copies (and skip without them).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import http.server
import re
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

import opendp_graph as dpg
from opendp_graph import cli
from opendp_graph.datasets import _resolve as R
from opendp_graph.datasets import DataIntegrityError, DataUnavailableError, data_path

A = b"alpha\n"
B_CANONICAL = b"1\t2\r\r\n3\t4"  # as the canonical source serves it
B = b"1 2\n3 4\n"  # as the loaders read it


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def write_toy(folder: Path, a: bytes = A, b: bytes = B) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.txt").write_bytes(a)
    (folder / "b.txt").write_bytes(b)
    return folder


@pytest.fixture
def server(tmp_path):
    """An ``http.server`` over ``tmp_path/www`` on 127.0.0.1; ``requests`` lists the paths asked."""
    root = tmp_path / "www"
    root.mkdir()
    requests: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):
            requests.append(self.path)
            super().do_GET()

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield SimpleNamespace(root=root, url=f"http://127.0.0.1:{httpd.server_port}", requests=requests)
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def env(tmp_path, monkeypatch):
    """An isolated resolver: an empty local data folder and cache, downloads off, no mirror."""
    local, cache = tmp_path / "local", tmp_path / "cache"
    local.mkdir()
    monkeypatch.setenv(R.ENV_DATA, str(local))
    monkeypatch.setenv(R.ENV_CACHE, str(cache))
    monkeypatch.setenv(R.ENV_DOWNLOAD, "0")
    monkeypatch.delenv(R.ENV_URL, raising=False)
    monkeypatch.setattr(R, "_RETRIES", 0)  # pooch would retry a bad download after 1 s, 2 s
    return SimpleNamespace(local=local, cache=cache)


@pytest.fixture
def toy(monkeypatch, server):
    """Data set ``toy``: ``a.txt`` as served, ``b.txt`` normalised after download; the server
    holds the canonical files under ``canon/`` and a mirror (loader form) under ``mirror/toy/``."""
    files = (
        R.DataFile("a.txt", sha(A), len(A), f"{server.url}/canon/a.txt"),
        R.DataFile("b.txt", sha(B), len(B), f"{server.url}/canon/b.txt", download_sha256=sha(B_CANONICAL), normalise=True),
    )
    monkeypatch.setitem(R.DATASETS, "toy", R.Dataset("toy", "a toy", files, "the test server", "none", "none"))
    write_toy(server.root / "canon", b=B_CANONICAL)
    write_toy(server.root / "mirror" / "toy")
    return R.DATASETS["toy"]


# -- resolution order ------------------------------------------------------------------------


def test_explicit_path_wins_and_nothing_else_is_tried(env, toy, tmp_path):
    write_toy(env.local / "toy")
    mine = write_toy(tmp_path / "mine")
    assert data_path("toy", mine) == mine
    assert data_path("toy", str(mine)) == mine
    write_toy(tmp_path / "root" / "toy")
    assert data_path("toy", tmp_path / "root") == tmp_path / "root" / "toy"  # a folder holding toy/
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "a.txt").write_bytes(A)
    with pytest.raises(DataUnavailableError, match="lacks b.txt") as error:
        data_path("toy", tmp_path / "half")  # incomplete: no fallback to the local copy
    assert isinstance(error.value, FileNotFoundError)
    with pytest.raises(TypeError):
        data_path("toy", 3)
    with pytest.raises(ValueError, match="unknown data set"):
        data_path("nope")


def test_local_data_folder_comes_before_the_cache(env, toy):
    write_toy(env.local / "toy")
    write_toy(env.cache / "toy")
    assert data_path("toy") == env.local / "toy"
    row = R.status("toy")[0]
    assert (row["source"], row["path"], row["cached"], row["size"]) == ("local", env.local / "toy", True, len(A) + len(B))
    (env.local / "toy" / "b.txt").unlink()  # an incomplete folder does not count
    assert data_path("toy") == env.cache / "toy"
    assert R.status("toy")[0]["source"] == "cache"


def test_checkout_shared_data_only_from_a_source_checkout(env, toy, tmp_path, monkeypatch):
    monkeypatch.delenv(R.ENV_DATA)
    repo = tmp_path / "checkout" / "repo"
    (repo / "opendp_graph").mkdir(parents=True)
    monkeypatch.setattr(R, "_PACKAGE_DIR", repo / "opendp_graph")
    shared = write_toy(tmp_path / "checkout" / "shared" / "data" / "toy")
    with pytest.raises(DataUnavailableError, match="not run from a source checkout"):
        data_path("toy")  # no pyproject.toml: an installed package does not look beside itself
    (repo / "pyproject.toml").write_text('[project]\nname = "something-else"\n')
    with pytest.raises(DataUnavailableError):
        data_path("toy")
    (repo / "pyproject.toml").write_text('[project]\nname = "opendp-graph"\n')
    assert data_path("toy") == shared
    monkeypatch.setenv(R.ENV_DATA, str(env.local))  # $OPENDP_GRAPH_DATA replaces ../shared/data
    with pytest.raises(DataUnavailableError, match="OPENDP_GRAPH_DATA"):
        data_path("toy")


def test_this_repository_is_a_source_checkout():
    repo = Path(__file__).resolve().parents[2]
    if R._PACKAGE_DIR != repo / "opendp_graph":
        pytest.skip(f"the package is imported from {R._PACKAGE_DIR}, not from this checkout (not an editable install)")
    assert R._checkout_root() == repo


def test_cache_location(monkeypatch, tmp_path):
    monkeypatch.delenv(R.ENV_CACHE, raising=False)
    import pooch

    assert R.cache_dir() == Path(pooch.os_cache("opendp-graph"))
    monkeypatch.setenv(R.ENV_CACHE, str(tmp_path / "c"))
    assert R.cache_dir() == tmp_path / "c"


# -- downloads -------------------------------------------------------------------------------


def test_download_from_the_canonical_source_is_checked_and_normalised(env, toy, server, monkeypatch):
    monkeypatch.setenv(R.ENV_DOWNLOAD, "1")
    folder = data_path("toy")
    assert folder == env.cache / "toy"
    assert (folder / "a.txt").read_bytes() == A and (folder / "b.txt").read_bytes() == B
    assert sorted(server.requests) == ["/canon/a.txt", "/canon/b.txt"]
    assert files_under(env.cache) == [folder / "a.txt", folder / "b.txt"]  # no staging left over
    assert data_path("toy") == folder and len(server.requests) == 2  # cached: no second download
    assert R.status("toy")[0]["cached"] and R.verify("toy") == {"a.txt": True, "b.txt": True}


def test_download_from_a_mirror_and_the_explicit_switch(env, toy, server, monkeypatch):
    monkeypatch.setenv(R.ENV_URL, server.url + "/mirror/")
    assert data_path("toy", download=True) == env.cache / "toy"  # download=True beats OPENDP_GRAPH_DOWNLOAD=0
    assert sorted(server.requests) == ["/mirror/toy/a.txt", "/mirror/toy/b.txt"]
    assert (env.cache / "toy" / "b.txt").read_bytes() == B


def _break_canonical_b(server, toy, monkeypatch):
    (server.root / "canon" / "b.txt").write_bytes(B_CANONICAL + b"\r\r\n5\t6")


def _break_normalised_b(server, toy, monkeypatch):
    # the served bytes match the pinned download hash, but normalise to something else
    other = b"1\t2\r\r\n3\t5"
    (server.root / "canon" / "b.txt").write_bytes(other)
    files = (toy.files[0], dataclasses.replace(toy.files[1], download_sha256=sha(other)))
    monkeypatch.setitem(R.DATASETS, "toy", dataclasses.replace(toy, files=files))


def _break_mirror_a(server, toy, monkeypatch):
    monkeypatch.setenv(R.ENV_URL, server.url + "/mirror")
    (server.root / "mirror" / "toy" / "a.txt").write_bytes(b"alpha, tampered\n")


@pytest.mark.parametrize("corrupt", [_break_canonical_b, _break_normalised_b, _break_mirror_a], ids=lambda f: f.__name__[1:])
def test_a_corrupted_download_is_a_clear_error_and_caches_nothing(env, toy, server, monkeypatch, corrupt):
    monkeypatch.setenv(R.ENV_DOWNLOAD, "1")
    corrupt(server, toy, monkeypatch)
    with pytest.raises(DataIntegrityError) as error:
        data_path("toy")
    message = str(error.value)
    assert "'toy'" in message and "SHA" in message and "othing was cached" in message and server.url in message
    assert files_under(env.cache) == []  # a.txt passed, yet it is not kept either
    assert not isinstance(error.value, FileNotFoundError)  # a corrupted file is not "missing": no skip
    with pytest.raises(DataIntegrityError):
        data_path("toy")  # and it stays an error: nothing half-cached hides it


def test_downloads_off_says_why_and_how(env, toy, server):
    with pytest.raises(DataUnavailableError) as error:
        data_path("toy")
    reason = error.value.reason
    assert f"no folder {env.local / 'toy'}" in reason and f"no folder {env.cache / 'toy'}" in reason
    assert "downloads are off (OPENDP_GRAPH_DOWNLOAD=0)" in reason and "opendp-graph data fetch toy" in reason
    with pytest.raises(DataUnavailableError, match="download=False"):
        data_path("toy", download=False)
    assert server.requests == [] and files_under(env.cache) == []


@pytest.mark.parametrize("value, enabled", [("", True), ("1", True), ("yes", True), ("0", False), ("Off", False), ("false", False)])
def test_the_download_switch(monkeypatch, value, enabled):
    monkeypatch.setenv(R.ENV_DOWNLOAD, value)
    assert R.downloads_enabled() is enabled


def test_an_invalid_download_switch_is_refused(monkeypatch):
    monkeypatch.setenv(R.ENV_DOWNLOAD, "maybe")
    with pytest.raises(ValueError, match="OPENDP_GRAPH_DOWNLOAD"):
        R.downloads_enabled()


def test_an_unreachable_file_is_unavailable_and_caches_nothing(env, toy, server, monkeypatch):
    monkeypatch.setenv(R.ENV_DOWNLOAD, "1")
    (server.root / "canon" / "b.txt").unlink()
    with pytest.raises(DataUnavailableError, match="404") as error:
        data_path("toy")
    assert "downloading b.txt" in error.value.reason
    assert files_under(env.cache) == []


def test_normalise_text():
    assert R.normalise_text(B_CANONICAL) == B
    assert R.normalise_text(B) == B
    assert R.normalise_text(b"\r\n 7 \t 8 \r\n\r\n") == b"7 8\n"


def test_registry_pins_commits():
    for dataset in R.DATASETS.values():
        (commit,) = re.findall(r"\b[0-9a-f]{40}\b", dataset.source)
        for file in dataset.files:
            assert file.url.startswith("https://raw.githubusercontent.com/") and f"/{commit}/" in file.url
            assert len(file.sha256) == 64 and (file.download_sha256 is None) == (not file.normalise)


# -- the command line and the reproductions --------------------------------------------------


def test_cli_data_list_and_fetch(env, toy, server, monkeypatch, capsys):
    monkeypatch.setenv(R.ENV_URL, server.url + "/mirror")
    assert cli.main(["data", "list", "toy"]) == 0
    out = capsys.readouterr().out
    assert "toy" in out and "missing (downloads off)" in out and str(env.cache) in out
    assert cli.main(["data", "fetch", "toy"]) == 0  # an explicit fetch downloads even with the switch off
    assert f"toy: fetched into {env.cache / 'toy'}" in capsys.readouterr().out
    assert cli.main(["data", "fetch", "toy"]) == 0
    assert "already available" in capsys.readouterr().out
    assert cli.main(["data", "list", "--verify", "toy"]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("toy"))
    assert "cache" in line and " yes " in line and "sha256 ok" in line
    (env.cache / "toy" / "a.txt").write_bytes(b"changed\n")
    assert cli.main(["data", "list", "--verify", "toy"]) == 0
    assert "MISMATCH: a.txt" in capsys.readouterr().out
    assert cli.main(["data", "fetch", "nonsense"]) == 2


def test_cli_data_fetch_of_a_corrupted_file_fails(env, toy, server, monkeypatch, capsys):
    _break_mirror_a(server, toy, monkeypatch)
    assert cli.main(["data", "fetch", "toy"]) == 1
    assert "othing was cached" in capsys.readouterr().err
    assert files_under(env.cache) == []


def test_cli_data_list_of_the_real_registry(env, capsys):
    assert cli.main(["data", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("enron-perry-wolfe", "deezer", "email-eu-core"):
        assert name in out


def test_reproductions_without_data_explain(env, capsys):
    from reproductions import blowfish, pufferfish

    assert blowfish.main(["--quick"]) == 2
    assert "data set 'deezer' not available" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        pufferfish.main(["--quick"])
    assert "data set 'enron-perry-wolfe' not available" in capsys.readouterr().err
    with pytest.raises(DataUnavailableError):
        dpg.datasets.load_enron()
    with pytest.raises(DataUnavailableError):
        dpg.datasets.load_deezer(country="RO")
    with pytest.raises(DataUnavailableError):
        dpg.datasets.load_email_eu_core_messages()
    with pytest.raises(TypeError, match="country is required"):
        dpg.datasets.load_deezer()


# -- the real data sets through a local mirror (skipped without them) -------------------------


@pytest.fixture(scope="session")
def real_folders(dataset):
    """The resolved real data sets, looked up before ``env`` isolates the resolver."""
    found = {}
    for name in R.DATASETS:
        try:
            found[name] = dataset(name)
        except pytest.skip.Exception as skipped:
            found[name] = skipped.msg
    return found


def real(real_folders, name) -> Path:
    if not isinstance(real_folders[name], Path):
        pytest.skip(real_folders[name])
    return real_folders[name]


def copy_files(dataset, source: Path, target: Path, transform=lambda f, data: data) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for file in dataset.files:
        (target / file.name).write_bytes(transform(file, (source / file.name).read_bytes()))


@pytest.mark.parametrize("name", list(R.DATASETS))
def test_the_resolved_real_files_match_the_registry(real_folders, name):
    folder = real(real_folders, name)
    assert R.verify(name, folder) == {f.name: True for f in R.DATASETS[name].files}
    sums = folder.parent / "SHA256SUMS"
    if sums.is_file():  # ../shared/data's own list agrees with the registry
        listed = dict(reversed(line.split()) for line in sums.read_text().splitlines() if line.strip())
        for file in R.DATASETS[name].files:
            assert listed[f"{name}/{file.name}"] == file.sha256


def test_real_data_sets_download_from_a_mirror_and_load(real_folders, env, server, monkeypatch):
    for name, dataset in R.DATASETS.items():
        copy_files(dataset, real(real_folders, name), server.root / "mirror" / name)
    monkeypatch.setenv(R.ENV_URL, server.url + "/mirror")
    monkeypatch.setenv(R.ENV_DOWNLOAD, "1")
    g = dpg.datasets.load_enron()  # path=None: resolved, downloaded into the cache, checked
    assert (g.num_nodes, g.num_edges) == (156, 1843)
    assert dpg.datasets.load_email_eu_core().num_edges == 16064
    assert dpg.datasets.load_deezer(country="RO").num_edges == 125826
    for name in R.DATASETS:
        assert data_path(name) == env.cache / name
        assert all(R.verify(name).values())


def test_real_data_sets_from_their_canonical_paths(real_folders, env, server, monkeypatch):
    """The pinned URLs' paths, served locally: enron and deezer byte for byte, email-eu-core in
    its canonical form (tabs, "\\r\\r\\n", no final newline), checked against its own pinned hash
    and normalised back to the loaders' copy."""

    def canonical(file, data):
        if not file.normalise:
            return data
        raw = b"\r\r\n".join(line.replace(b" ", b"\t") for line in data.splitlines())
        assert sha(raw) == file.download_sha256
        return raw

    host = "https://raw.githubusercontent.com"
    for name, dataset in list(R.DATASETS.items()):
        source = real(real_folders, name)
        files = []
        for file in dataset.files:
            served = server.root / "gh" / file.url[len(host) + 1 :]
            served.parent.mkdir(parents=True, exist_ok=True)
            served.write_bytes(canonical(file, (source / file.name).read_bytes()))
            files.append(dataclasses.replace(file, url=f"{server.url}/gh/{file.url[len(host) + 1 :]}"))
        monkeypatch.setitem(R.DATASETS, name, dataclasses.replace(dataset, files=tuple(files)))
    assert set(R.fetch().values()) == {env.cache / name for name in R.DATASETS}
    for name in R.DATASETS:
        assert all(R.verify(name).values())
    assert len(server.requests) == sum(len(d.files) for d in R.DATASETS.values())


def test_a_tampered_real_file_is_refused(real_folders, env, server, monkeypatch):
    dataset = R.DATASETS["enron-perry-wolfe"]
    copy_files(dataset, real(real_folders, dataset.name), server.root / "mirror" / dataset.name)
    messages = server.root / "mirror" / dataset.name / "messages.tsv"
    data = bytearray(messages.read_bytes())
    data[1000] ^= 1
    messages.write_bytes(bytes(data))
    monkeypatch.setenv(R.ENV_URL, server.url + "/mirror")
    with pytest.raises(DataIntegrityError, match="messages.tsv"):
        data_path(dataset.name, download=True)
    assert files_under(env.cache) == []
