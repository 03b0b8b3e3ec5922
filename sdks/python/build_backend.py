"""A PEP 517 build backend on the standard library alone, for this one package: the sdist and the wheel of
src/unified_utility_api, its version from _version.py (the contract's). pip uses it (`pip install .`, or
installing the sdist); `python3 build_backend.py [outdir]` builds both into dist/."""

import base64
import hashlib
import io
import os
import re
import sys
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "unified_utility_api"
DIST = "unified-utility-api"
SUMMARY = "The Unified Utility API's client: every endpoint as a method, by category"
# A fixed time for every archive member: the same sources give the same bytes.
EPOCH = (2020, 1, 1, 0, 0, 0)


def _version():
    with open(os.path.join(HERE, "src", NAME, "_version.py"), encoding="utf-8") as f:
        return re.search(r'^CONTRACT_VERSION = "([^"]+)"', f.read(), re.M).group(1)


def _package_files():
    root = os.path.join(HERE, "src", NAME)
    for name in sorted(os.listdir(root)):
        if name.endswith(".py") or name == "py.typed":
            yield os.path.join(root, name), f"{NAME}/{name}"


def _metadata(version):
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {DIST}\nVersion: {version}\nSummary: {SUMMARY}\n"
        "License: GPL-3.0-or-later\nRequires-Python: >=3.8\n"
        "Description-Content-Type: text/markdown\n\n" + readme
    )


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    filename = f"{NAME}-{version}-py3-none-any.whl"
    info = f"{NAME}-{version}.dist-info"
    files = [(arc, open(path, "rb").read()) for path, arc in _package_files()]
    files.append((f"{info}/METADATA", _metadata(version).encode()))
    files.append((f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: unified-utility-api build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "".join(f"{arc},{_digest(data)},{len(data)}\n" for arc, data in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for arc, data in files:
            whl.writestr(zipfile.ZipInfo(arc, EPOCH), data, zipfile.ZIP_DEFLATED)
    return filename


def build_sdist(sdist_directory, config_settings=None):
    version = _version()
    base = f"{NAME}-{version}"
    filename = f"{base}.tar.gz"
    members = [(os.path.join(HERE, name), name) for name in ("pyproject.toml", "build_backend.py", "README.md")]
    members += [(path, f"src/{arc}") for path, arc in _package_files()]
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:

        def add(arc, data):
            member = tarfile.TarInfo(f"{base}/{arc}")
            member.size = len(data)
            member.mtime = 1577836800
            member.mode = 0o644
            tar.addfile(member, io.BytesIO(data))

        for path, arc in members:
            with open(path, "rb") as f:
                add(arc, f.read())
        add("PKG-INFO", _metadata(version).encode())
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "dist")
    os.makedirs(out, exist_ok=True)
    for built in (build_sdist(out), build_wheel(out)):
        print(os.path.join(out, built))
