"""Where the real data sets come from: one resolver for the loaders, notebooks, reproductions,
benchmarks and tests.

:func:`data_path` returns the folder of a data set (``"enron-perry-wolfe"``, ``"deezer"``,
``"email-eu-core"``), looking, in this order, at:

1. **an explicit path** (the ``path=`` argument, ``--data``): the data set's folder itself, or a
   folder holding it as ``<name>/``. Nothing else is tried when a path is given;
2. **the local data folder**: ``$OPENDP_GRAPH_DATA`` if set, else ``../shared/data`` beside the
   source checkout (only when the package runs from a source checkout, i.e. the folder above
   ``opendp_graph/`` holds this project's ``pyproject.toml``). It holds one sub-folder per data set;
3. **the per-user cache**: ``$OPENDP_GRAPH_CACHE`` if set, else ``pooch.os_cache("opendp-graph")``
   (``~/.cache/opendp-graph`` on Linux), same layout;
4. **a download** into that cache from the data set's canonical public source, pinned to a commit
   (see :data:`DATASETS`), with :mod:`pooch`, unless downloads are off
   (``OPENDP_GRAPH_DOWNLOAD=0``, or ``download=False``). ``$OPENDP_GRAPH_DATA_URL`` replaces the
   canonical sources by a mirror laid out like a local data folder
   (``<url>/<name>/<file>``, e.g. an ``http.server`` over a copy of ``../shared/data``).

A folder counts only when it holds *every* file of the data set; an incomplete one is reported
and skipped. The first complete folder wins.

What is verified (SHA-256)
--------------------------
* **Downloads, always.** pooch streams each file to a temporary name, compares its SHA-256 with
  the registry and only then moves it into place; a data set is downloaded into a private staging
  folder and moved into the cache only when *all* its files passed, so a mismatch raises
  :class:`DataIntegrityError` and leaves nothing in the cache.

  - From the canonical sources the hash checked is that of the file at the pinned commit. The
    hashes were computed from the git objects of the pinned commits and, for Enron and Deezer,
    equal those of ``../shared/data/SHA256SUMS`` (the shared copies are byte-identical).
  - ``email-eu-core`` is the exception: the pinned files separate the two fields with a tab and
    end lines with ``"\\r\\r\\n"``, while the copy the loaders read (``SHA256SUMS``; PROVENANCE.md
    calls this "line endings normalised") has one space and ``"\\n"``. Its download is checked
    against the pinned file's own hash (``download_sha256``), then a pooch *processor* rewrites
    it (fields split on whitespace and joined by one space, ``"\\n"`` line ends, blank lines
    dropped) and the result is checked against ``SHA256SUMS`` with ``pooch.file_hash``: both the
    raw and the normalised bytes are verified.
  - From a mirror (``$OPENDP_GRAPH_DATA_URL``) the files are expected in the loaders' form, so
    every file is checked against the ``SHA256SUMS`` hash (normalising is then a no-op).
* **Not verified on every use:** a folder given as a path, the local data folder and the cache
  are trusted as they are (the cache only ever receives verified files); hashing them on each
  load would cost more than the load. ``opendp-graph data list --verify`` (:func:`verify`) checks
  any of them on demand.
* **Not tested here:** the canonical URLs themselves (raw.githubusercontent.com) could not be
  reached from the development machine; the download path is tested through a local HTTP server.

Licences and citations: :data:`DATASETS` (and ``../shared/data/PROVENANCE.md``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DATASETS",
    "DataFile",
    "Dataset",
    "DataUnavailableError",
    "DataIntegrityError",
    "data_path",
    "fetch",
    "status",
    "verify",
    "cache_dir",
    "downloads_enabled",
]

ENV_DATA = "OPENDP_GRAPH_DATA"
ENV_CACHE = "OPENDP_GRAPH_CACHE"
ENV_URL = "OPENDP_GRAPH_DATA_URL"
ENV_DOWNLOAD = "OPENDP_GRAPH_DOWNLOAD"

# a download is retried this many times on a network error or hash mismatch (pooch's own loop)
_RETRIES = 2
# the folder of the installed package; its parent is the source checkout when it holds pyproject.toml
_PACKAGE_DIR = Path(__file__).resolve().parents[1]


class DataUnavailableError(FileNotFoundError):
    """A data set could not be resolved: no complete folder was found and it could not be
    downloaded (downloads off, or the download failed). ``reason`` says where it looked."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"data set {name!r} not available: {reason}")
        self.name = name
        self.reason = reason


class DataIntegrityError(ValueError):
    """A downloaded file does not have the registered SHA-256; nothing was cached."""


@dataclass(frozen=True)
class DataFile:
    """One file of a data set.

    :param name: the file name inside the data set's folder.
    :param sha256: SHA-256 of the file as the loaders read it (``../shared/data/SHA256SUMS``).
    :param size: its size in bytes.
    :param url: its canonical URL, pinned to a commit.
    :param download_sha256: SHA-256 of the canonical file when it differs from ``sha256``
        (it is then rewritten after the download, see ``normalise``).
    :param normalise: rewrite the downloaded text: fields split on whitespace and joined by one
        space, ``"\\n"`` line ends, blank lines dropped.
    """

    name: str
    sha256: str
    size: int
    url: str
    download_sha256: str | None = None
    normalise: bool = False


@dataclass(frozen=True)
class Dataset:
    """A data set: its folder name, files, source, licence and citation."""

    name: str
    title: str
    files: tuple[DataFile, ...]
    source: str
    licence: str
    cite: str

    @property
    def size(self) -> int:
        """Bytes of the loader-ready files."""
        return sum(f.size for f in self.files)


_IPROC = "https://raw.githubusercontent.com/patperry/iproc/2a3a86522ca55fd2732aaaa55023e91e644581a4/inst/extdata/enron"
_DEEZER = "https://raw.githubusercontent.com/benedekrozemberczki/datasets/b9870cfefbd762200c2269f4c8d61b2d4c86813a/deezer"
_EU = "https://raw.githubusercontent.com/paragk-10/Social-Network-Analysis/ebbdf2303818b991035e2182cddd83a31fd2925b"

#: The registry: every data set the loaders read, by folder name.
DATASETS: dict[str, Dataset] = {
    "enron-perry-wolfe": Dataset(
        name="enron-perry-wolfe",
        title="Enron e-mail among 156 employees (senders, recipients, subjects)",
        files=(
            DataFile("employees.tsv", "05794eba0e94f1d8e5bff47d43eb9a26b737e46d4aacadfea5a817e49fda0f90", 9600, f"{_IPROC}/employees.tsv"),
            DataFile("messages.tsv", "e26606cfb7a9b6c3a3f11bc7e0a23c7ca83a09bb589760b3a1287b9b01efb776", 1501662, f"{_IPROC}/messages.tsv"),
            DataFile("recipients.tsv", "cbc71bc8822365b451fb1d4d1e7ba48de2f4d23cda94008368a425cc8a2023f8", 418359, f"{_IPROC}/recipients.tsv"),
        ),
        source="github.com/patperry/iproc inst/extdata/enron/ at 2a3a86522ca55fd2732aaaa55023e91e644581a4",
        licence="BSD 3-clause (the e-mails are the public FERC release)",
        cite="Perry & Wolfe, Point process modelling for directed interaction networks, JRSS-B 2013; Zhou et al. 2007",
    ),
    "deezer": Dataset(
        name="deezer",
        title="Deezer friendship graphs of Hungary (HU) and Romania (RO), with liked genres",
        files=(
            DataFile("HU_edges.csv", "4f89a0cba9d89d25d4fe97403097731a0fc909e9fcf03c8b9d9c0ddeb5b4c6c1", 2565945, f"{_DEEZER}/HU/HU_edges.csv"),
            DataFile("HU_genres.json", "194f2830de93939dc018c0a3c8c0f2a546b2ec584f1134cd2fbba19dbb74738c", 4053774, f"{_DEEZER}/HU/HU_genres.json"),
            DataFile("RO_edges.csv", "90cf9ade81aaac852f4aca3a5b2d023f0eff8f97089be28e4eaa0cd7518a81a1", 1443116, f"{_DEEZER}/RO/RO_edges.csv"),
            DataFile("RO_genres.json", "97ec1f3e4ded9fbbbfdbf5d4bf21c0c592d8d52f3797b1d95dd25d8e05c00bf9", 3615864, f"{_DEEZER}/RO/RO_genres.json"),
        ),
        source="github.com/benedekrozemberczki/datasets deezer/ at b9870cfefbd762200c2269f4c8d61b2d4c86813a",
        licence="MIT",
        cite="Rozemberczki, Davies, Sarkar & Sutton, GEMSEC, ASONAM 2019",
    ),
    "email-eu-core": Dataset(
        name="email-eu-core",
        title="SNAP email-Eu-core: who e-mailed whom in a European research institution, with departments",
        files=(
            DataFile(
                "email-Eu-core.txt",
                "23e0ca0bce21a053025e78f7e9691ac9210ae806a0689bd5edff3c3bac572d4c",
                192698,
                f"{_EU}/email-Eu-core.txt",
                download_sha256="275afe50e65b7cb3caadaa9e465e89e9b495b0e7b5a75058b29d70708cd73540",
                normalise=True,
            ),
            DataFile(
                "email-Eu-core-department-labels.txt",
                "91a089f21ee35eb224066456fa5322c8ad57c0f07b2da7a58a3220c72b5d54b5",
                6537,
                f"{_EU}/email-Eu-core-department-labels.txt",
                download_sha256="8724324273873bba3b4ba79444d5113bf8122cb76a51d5396b50f80c29b63f35",
                normalise=True,
            ),
        ),
        source="github.com/paragk-10/Social-Network-Analysis at ebbdf2303818b991035e2182cddd83a31fd2925b (a copy of SNAP's)",
        licence="SNAP: no formal licence; cite",
        cite="Yin, Benson, Leskovec & Gleich, KDD 2017; Leskovec, Kleinberg & Faloutsos, TKDD 2007",
    ),
}


def _dataset(name: str) -> Dataset:
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; known: {', '.join(DATASETS)}")
    return DATASETS[name]


def downloads_enabled() -> bool:
    """Whether the resolver may download: ``$OPENDP_GRAPH_DOWNLOAD`` (``1``/``true``/``yes``/``on``
    or ``0``/``false``/``no``/``off``; unset means yes)."""
    value = os.environ.get(ENV_DOWNLOAD, "").strip().lower()
    if value in ("", "1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{ENV_DOWNLOAD} must be 0 or 1 (or true/false, yes/no, on/off), got {os.environ[ENV_DOWNLOAD]!r}")


def cache_dir() -> Path:
    """The per-user cache: ``$OPENDP_GRAPH_CACHE``, else ``pooch.os_cache("opendp-graph")``."""
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env).expanduser()
    import pooch

    return Path(pooch.os_cache("opendp-graph"))


def _checkout_root() -> Path | None:
    """The source checkout the package runs from, if any (the folder holding this project's
    ``pyproject.toml`` above ``opendp_graph/``); ``None`` for an installed package."""
    root = _PACKAGE_DIR.parent
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if 'name = "opendp-graph"' in text else None


def _local_root() -> tuple[Path | None, str]:
    """The local data folder and how it was chosen."""
    env = os.environ.get(ENV_DATA)
    if env:
        return Path(env).expanduser(), f"${ENV_DATA}"
    checkout = _checkout_root()
    if checkout is not None:
        return checkout.parent / "shared" / "data", "../shared/data beside the checkout"
    return None, f"${ENV_DATA} is not set and the package is not run from a source checkout"


def _missing(dataset: Dataset, folder: Path) -> list[str]:
    return [f.name for f in dataset.files if not (folder / f.name).is_file()]


def _describe(folder: Path, missing: list[str], dataset: Dataset) -> str:
    if not folder.is_dir():
        return f"no folder {folder}"
    return f"{folder} lacks {', '.join(missing)}" if len(missing) < len(dataset.files) else f"{folder} holds none of its files"


def _explicit(dataset: Dataset, path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or path-like naming the {dataset.name} folder, got {type(path).__name__}")
    given = Path(path).expanduser()
    for folder in (given, given / dataset.name):
        if folder.is_dir() and not _missing(dataset, folder):
            return folder
    raise DataUnavailableError(dataset.name, f"the given path {_describe(given, _missing(dataset, given), dataset)}")


def _lookups(dataset: Dataset) -> list[tuple[str, Path | None, str]]:
    """(source, folder, description) for the local data folder and the cache, in order."""
    root, how = _local_root()
    local = ("local", root / dataset.name if root is not None else None, how)
    return [local, ("cache", cache_dir() / dataset.name, "the cache")]


def _find(dataset: Dataset) -> tuple[str | None, Path | None, list[str]]:
    """The first complete folder: (source, folder, reasons why the others did not count)."""
    reasons = []
    for source, folder, how in _lookups(dataset):
        if folder is None:
            reasons.append(how)
            continue
        missing = _missing(dataset, folder)
        if not missing:
            return source, folder, reasons
        reasons.append(f"{how}: {_describe(folder, missing, dataset)}")
    return None, None, reasons


def data_path(name: str, path: str | os.PathLike | None = None, *, download: bool | None = None) -> Path:
    """The folder holding data set ``name``, resolved as the module docstring says.

    :param name: ``"enron-perry-wolfe"``, ``"deezer"`` or ``"email-eu-core"``.
    :param path: an explicit folder (the data set's, or one holding ``<name>/``); when given,
        nothing else is tried.
    :param download: allow a download into the cache when no folder holds the data set;
        ``None`` (default) follows ``$OPENDP_GRAPH_DOWNLOAD`` (on unless set to ``0``).
    :raises DataUnavailableError: (a ``FileNotFoundError``) when the data set is nowhere and
        cannot be downloaded; its ``reason`` lists where the resolver looked.
    :raises DataIntegrityError: when a download does not match its SHA-256 (nothing is cached).

    >>> import opendp_graph as dpg
    >>> dpg.datasets.data_path("enron-perry-wolfe")  # doctest: +SKIP
    PosixPath('/home/me/.cache/opendp-graph/enron-perry-wolfe')
    """
    dataset = _dataset(name)
    if path is not None:
        return _explicit(dataset, path)
    source, folder, reasons = _find(dataset)
    if folder is not None:
        return folder
    allowed = downloads_enabled() if download is None else bool(download)
    if not allowed:
        why = f"{ENV_DOWNLOAD}={os.environ.get(ENV_DOWNLOAD)}" if download is None else "download=False"
        reasons.append(f"downloads are off ({why})")
        hint = f"run `opendp-graph data fetch {name}`, set {ENV_DATA} to a folder holding {name}/, or pass a path"
        raise DataUnavailableError(name, "; ".join(reasons) + f". To get it: {hint}")
    return _download(dataset, reasons)


def _source_urls(dataset: Dataset) -> tuple[dict[str, str], dict[str, str], str]:
    """pooch's registry (file → hash of the bytes served) and URLs, and a description."""
    mirror = os.environ.get(ENV_URL)
    if mirror:
        base = mirror.rstrip("/")
        urls = {f.name: f"{base}/{dataset.name}/{f.name}" for f in dataset.files}
        return {f.name: f.sha256 for f in dataset.files}, urls, f"the mirror {base} (${ENV_URL})"
    registry = {f.name: f.download_sha256 or f.sha256 for f in dataset.files}
    return registry, {f.name: f.url for f in dataset.files}, f"its canonical source ({dataset.source})"


def normalise_text(data: bytes) -> bytes:
    """Whitespace-separated text in the loaders' form: each line's fields joined by one space,
    ``"\\n"`` line ends, blank lines dropped (``"0\\t1\\r\\r\\n"`` → ``"0 1\\n"``).

    >>> normalise_text(b"0\\t1\\r\\r\\n\\r\\n2\\t3\\r\\r\\n")
    b'0 1\\n2 3\\n'
    """
    lines = [b" ".join(line.split()) for line in data.splitlines()]
    return b"".join(line + b"\n" for line in lines if line)


class _Normalise:
    """A pooch processor: rewrite a verified download into the loaders' form, then check the
    result against the loaders' SHA-256."""

    def __init__(self, file: DataFile):
        self.file = file

    def __call__(self, fname: str, action: str, pup) -> str:
        import pooch

        target = Path(fname)
        temporary = target.with_name(target.name + ".normalised")
        temporary.write_bytes(normalise_text(target.read_bytes()))
        os.replace(temporary, target)
        digest = pooch.file_hash(str(target), alg="sha256")
        if digest != self.file.sha256:
            raise DataIntegrityError(f"{self.file.name}: after normalising, SHA-256 {digest} differs from the expected {self.file.sha256}")
        return str(target)


def _download(dataset: Dataset, reasons: list[str]) -> Path:
    """Download every file of ``dataset`` into a staging folder of the cache with pooch (each
    checked against its SHA-256), then move them into ``<cache>/<name>/``. On any failure the
    staging folder is removed: nothing is cached."""
    import pooch
    import requests

    registry, urls, where = _source_urls(dataset)
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dataset.name}-download-", dir=cache))
    try:
        pup = pooch.create(path=staging, base_url="", registry=registry, urls=urls, retry_if_failed=_RETRIES)
        for file in dataset.files:
            processor = _Normalise(file) if file.normalise else None
            # stream=False: requests reads the whole (small, < 5 MB) file inside its session, so
            # the connection is closed with it (pooch's default streaming leaves the socket to
            # the garbage collector, a ResourceWarning).
            url = urls[file.name]
            downloader = pooch.HTTPDownloader(stream=False) if url.startswith(("http://", "https://")) else None
            try:
                pup.fetch(file.name, processor=processor, downloader=downloader)
            except DataIntegrityError as error:
                raise DataIntegrityError(f"data set {dataset.name!r}: {error} (downloaded from {urls[file.name]}); nothing was cached") from None
            except ValueError as error:  # pooch: the downloaded file's hash differs from the registry's
                raise DataIntegrityError(
                    f"data set {dataset.name!r}: {file.name} downloaded from {urls[file.name]} is corrupted or "
                    f"not the pinned version: {error} Nothing was cached."
                ) from None
            except (requests.RequestException, OSError) as error:
                reasons.append(f"downloading {file.name} from {where} failed: {error}")
                raise DataUnavailableError(dataset.name, "; ".join(reasons)) from None
        target = cache / dataset.name
        target.mkdir(exist_ok=True)
        for file in dataset.files:
            os.replace(staging / file.name, target / file.name)
        return target
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def fetch(names=None) -> dict[str, Path]:
    """Make data sets available (default: all), downloading those no folder holds, whatever
    ``$OPENDP_GRAPH_DOWNLOAD`` says (an explicit request). Returns ``{name: folder}``."""
    names = list(DATASETS) if names is None else [names] if isinstance(names, str) else list(names)
    for name in names:
        _dataset(name)
    return {name: data_path(name, download=True) for name in names}


def _size(folder: Path, dataset: Dataset) -> int:
    return sum((folder / f.name).stat().st_size for f in dataset.files)


def status(names=None) -> list[dict]:
    """Where each data set resolves from, without downloading: one dict per data set with
    ``name``, ``source`` (``"local"``, ``"cache"`` or ``None``), ``how`` (which local folder, or why
    none), ``path`` (the folder or ``None``), ``cached`` (complete in the cache), ``size`` (bytes
    at ``path``, else the download size) and ``reason`` (why it is missing, else ``""``)."""
    names = list(DATASETS) if names is None else [names] if isinstance(names, str) else list(names)
    rows = []
    for name in names:
        dataset = _dataset(name)
        source, folder, reasons = _find(dataset)
        cached_folder = cache_dir() / name
        rows.append(
            {
                "name": name,
                "source": source,
                "how": _local_root()[1] if source == "local" else "the cache" if source == "cache" else "",
                "path": folder,
                "cached": not _missing(dataset, cached_folder),
                "size": _size(folder, dataset) if folder is not None else dataset.size,
                "reason": "; ".join(reasons) if folder is None else "",
            }
        )
    return rows


def verify(name: str, path: str | os.PathLike | None = None) -> dict[str, bool]:
    """Check the files of a resolved data set (never downloading) against the registry's
    SHA-256 of the loader-ready files: ``{file name: matches}``."""
    import pooch

    dataset = _dataset(name)
    folder = data_path(name, path, download=False)
    return {f.name: pooch.file_hash(str(folder / f.name), alg="sha256") == f.sha256 for f in dataset.files}
