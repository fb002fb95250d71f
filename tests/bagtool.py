#!/usr/bin/python3
"""bagtool.py: rebuild and repack BagIt bags for the adversarial suite.

An attacker who edits a bag's payload also rewrites what the bag says about
it; this tool does that rewriting, so that each attack in
tests/attacks.test.sh reaches the checks past the BagIt layer.

  bagtool.py rebag DIR            recompute manifest-sha256.txt (every file
                                  under DIR/data), Payload-Oxum and the
                                  Bundle-Document identity in bag-info.txt,
                                  and tagmanifest-sha256.txt
  bagtool.py reid DIR              rewrite each item's "id" and "size" in
                                  DIR/data/bundle.json to its file's bytes
  bagtool.py tar DIR OUT [gzip]   DIR as a pax tar (its folder's name on top,
                                  entries sorted), gzip-compressed if asked
  bagtool.py json FILE CODE       run the Python CODE with d = FILE's JSON,
                                  write d back (sorted keys, compact)
  bagtool.py manifest-lines DIR N add N lines naming files that are not in
                                  the bag to DIR/manifest-sha256.txt
  bagtool.py entries OUT N        a gzip-compressed tar of N empty files
                                  (b/data/0000000 ...), nothing else: one
                                  header made by tarfile, its name and
                                  checksum rewritten for each entry (a
                                  million entries take seconds, not minutes)
  bagtool.py bomb SIZE [head|late] a bag "b" as a pax tar to standard
                                  output (compress it with gzip or zstd):
                                  SIZE zero bytes in data/zeros.bin, every
                                  digest and its Payload-Oxum true; with
                                  head, the tar ends after that entry's
                                  header (an archive declaring SIZE bytes,
                                  cut short); with late, bag-info.txt comes
                                  last
"""
import hashlib
import io
import json
import os
import sys
import tarfile
import zlib


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def encode(name):
    return name.replace("%", "%25").replace("\n", "%0A").replace("\r", "%0D")


def payload(top):
    out = []
    for base, dirs, files in os.walk(os.path.join(top, "data")):
        dirs.sort()
        for f in files:
            full = os.path.join(base, f)
            out.append(os.path.relpath(full, top))
    return sorted(out)


def rebag(top):
    names = payload(top)
    with open(os.path.join(top, "manifest-sha256.txt"), "w", newline="\n") as m:
        for n in names:
            m.write("%s  %s\n" % (sha256(os.path.join(top, n)), encode(n)))
    size = sum(os.path.getsize(os.path.join(top, n)) for n in names)
    info = os.path.join(top, "bag-info.txt")
    lines = open(info).read().splitlines() if os.path.exists(info) else []
    bundle = os.path.join(top, "data", "bundle.json")
    out = []
    for line in lines:
        if line.startswith("Payload-Oxum:"):
            line = "Payload-Oxum: %d.%d" % (size, len(names))
        elif line.startswith("Bundle-Document:") and os.path.exists(bundle):
            line = "Bundle-Document: data/bundle.json sha256:" + sha256(bundle)
        out.append(line)
    with open(info, "w", newline="\n") as f:
        f.write("".join(l + "\n" for l in out))
    tags = [t for t in ("bag-info.txt", "bagit.txt", "manifest-sha256.txt")
            if os.path.exists(os.path.join(top, t))]
    with open(os.path.join(top, "tagmanifest-sha256.txt"), "w", newline="\n") as f:
        for t in tags:
            f.write("%s  %s\n" % (sha256(os.path.join(top, t)), t))


def reid(top):
    path = os.path.join(top, "data", "bundle.json")
    d = json.load(open(path, encoding="utf-8"))
    for it in d["items"]:
        f = os.path.join(top, "data", it["path"])
        if os.path.isfile(f):
            it["id"] = "sha256:" + sha256(f)
            it["size"] = os.path.getsize(f)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def pack(top, out, gzip=False):
    top = top.rstrip("/")
    name = os.path.basename(top)
    entries = [name]
    for base, dirs, files in os.walk(top):
        for d in dirs:
            entries.append(os.path.join(name, os.path.relpath(os.path.join(base, d), top)))
        for f in files:
            entries.append(os.path.join(name, os.path.relpath(os.path.join(base, f), top)))
    with tarfile.open(out, "w:gz" if gzip else "w", format=tarfile.PAX_FORMAT) as t:
        for e in sorted(entries):
            src = os.path.join(os.path.dirname(top), e)
            info = t.gettarinfo(src, arcname=e)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 1784505600
            if info.isfile():
                with open(src, "rb") as f:
                    t.addfile(info, f)
            else:
                t.addfile(info)


def edit(path, code):
    d = json.load(open(path, encoding="utf-8"))
    env = {"d": d, "json": json}
    exec(code, env)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(env["d"], sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def more_lines(top, n):
    with open(os.path.join(top, "manifest-sha256.txt"), "a", newline="\n") as m:
        for i in range(n):
            m.write("%064x  data/absent/%07d\n" % (i, i))


def entries(out, n):
    info = tarfile.TarInfo("b/data/0000000")
    info.mtime = 0
    head = bytearray(info.tobuf(format=tarfile.USTAR_FORMAT))
    # the checksum counts its own field as eight spaces; the name's digits
    # (bytes 7..13) are all that change
    base = sum(head) - sum(head[148:156]) + 8 * 32 - sum(head[7:14])
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    with open(out, "wb") as f:
        block = []
        for k in range(n):
            name = b"%07d" % k
            head[7:14] = name
            head[148:156] = b"%06o\0 " % (base + sum(name))
            block.append(bytes(head))
            if len(block) == 4096:
                f.write(z.compress(b"".join(block)))
                block = []
        block.append(b"\0" * 1024)
        f.write(z.compress(b"".join(block)))
        f.write(z.flush())


def bomb(size, how):
    z = hashlib.sha256()
    block = bytes(1 << 20)
    for k in range(size >> 20):
        z.update(block)
    z.update(bytes(size & ((1 << 20) - 1)))
    tags = {"bagit.txt": b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n",
            "bag-info.txt": b"Payload-Oxum: %d.1\n" % size,
            "manifest-sha256.txt": b"%s  data/zeros.bin\n" % z.hexdigest().encode()}
    tags["tagmanifest-sha256.txt"] = b"".join(
        b"%s  %s\n" % (hashlib.sha256(tags[t]).hexdigest().encode(), t.encode())
        for t in sorted(tags))
    out = sys.stdout.buffer

    def entry(name, n):
        info = tarfile.TarInfo("b/" + name)
        info.size = n
        out.write(info.tobuf(format=tarfile.PAX_FORMAT))

    def tag(name):
        entry(name, len(tags[name]))
        out.write(tags[name] + bytes(-len(tags[name]) % 512))

    for name in sorted(tags):
        if how != "late" or name != "bag-info.txt":
            tag(name)
    entry("data/zeros.bin", size)
    if how == "head":
        out.flush()
        return
    for k in range(size >> 20):
        out.write(block)
    out.write(bytes(size & ((1 << 20) - 1)) + bytes(-size % 512))
    if how == "late":
        tag("bag-info.txt")
    out.write(bytes(1024))
    out.flush()


def main(argv):
    if len(argv) >= 3 and argv[1] == "rebag":
        rebag(argv[2])
    elif len(argv) == 3 and argv[1] == "reid":
        reid(argv[2])
    elif len(argv) >= 4 and argv[1] == "tar":
        pack(argv[2], argv[3], len(argv) > 4 and argv[4] == "gzip")
    elif len(argv) == 4 and argv[1] == "json":
        edit(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "manifest-lines":
        more_lines(argv[2], int(argv[3]))
    elif len(argv) == 4 and argv[1] == "entries" and int(argv[3]) <= 9999999:
        entries(argv[2], int(argv[3]))
    elif len(argv) in (3, 4) and argv[1] == "bomb":
        bomb(int(argv[2]), argv[3] if len(argv) == 4 else "")
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
