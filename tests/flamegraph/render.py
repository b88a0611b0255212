#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Renders an unwprof flame graph in headless Chromium and checks what it draws.

  render.py SVG --comm NAME --frames F1,F2,... [--generate PROGRAM] [--min-share R]

--generate: first run PROGRAM SVG to write the file (tests/flamegraph/fg_chain).

The file must be well-formed XML with nothing outside it (no link but the
SVG namespace). Then, in Chromium, after the viewer's script has run:
  - every frame of --frames is drawn under the process NAME with a non-zero
    width, along one stack (each frame inside the one before it), and the
    last one covers at least --min-share of NAME's samples (default 0.5);
  - #s=REGEX highlights exactly the frames whose name matches and shows the
    share of samples they cover, as computed here from the frames' data;
  - #zoom=FRAME makes FRAME fill the width, keeps its ancestors, hides the
    frames outside it and rescales its children;
  - a screenshot shows the highlight color only when something is searched.

Exit status: 0 when every check holds, 1 when one fails, 77 (skip) when
Chromium is not installed.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET
import zlib

SVG_NS = "{http://www.w3.org/2000/svg}"
DRAW_W = 1180.0
PAD = 10.0
HIGHLIGHT = (230, 0, 230)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

failures = 0


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + msg, file=sys.stderr)
    return cond


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def run_chromium(chromium, url, extra, profile_dir):
    cmd = [chromium] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile_dir] + extra + [url]
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=90)
    except subprocess.TimeoutExpired:
        check(False, "chromium did not finish in 90 s: " + " ".join(cmd))
        return None
    if r.returncode != 0:
        check(False, f"chromium exited {r.returncode}: {r.stderr.decode(errors='replace')[-2000:]}")
        return None
    return r.stdout


class Frame:
    def __init__(self, g):
        self.g = g
        title = g.find(SVG_NS + "title").text or ""
        self.name = title[:title.rindex(" (")]
        self.cls = g.get("class", "").split()
        self.x = int(g.get("data-x"))
        self.c = int(g.get("data-c"))
        rect = g.find(SVG_NS + "rect")
        self.px = float(rect.get("x"))
        self.width = float(rect.get("width"))
        self.y = int(rect.get("y"))
        self.text = g.find(SVG_NS + "text").text or ""

    def inside(self, other):
        return other.x <= self.x and self.x + self.c <= other.x + other.c

    def __repr__(self):
        return f"{self.name}[x={self.x} c={self.c} y={self.y} px={self.px} w={self.width}]"


def parse_frames(root):
    group = root.find(f".//{SVG_NS}g[@id='frames']")
    if not check(group is not None, "no <g id=\"frames\">"):
        return []
    return [Frame(g) for g in group.findall(SVG_NS + "g")]


def load_dom(chromium, path, fragment, profile_dir):
    url = "file://" + urllib.parse.quote(os.path.abspath(path)) + fragment
    out = run_chromium(chromium, url, ["--dump-dom"], profile_dir)
    if out is None:
        return None, []
    try:
        root = ET.fromstring(out)
    except ET.ParseError as e:
        check(False, f"the DOM of {url} does not parse: {e}")
        return None, []
    check(root.get("data-ready") == "1", f"{url}: the viewer's script did not run")
    return root, parse_frames(root)


def chain_of(frames, comm, names):
    """The frames comm;...;names[0];...;names[-1] along one stack, the widest of each.

    Frames may lie between two of names (glibc's start code under main)."""
    chain = []
    parents = [f for f in frames if f.name == comm and "process" in f.cls]
    for name in names:
        cands = [f for f in frames if f.name == name
                 and any(f.y < p.y and f.inside(p) for p in parents)]
        if not cands:
            return chain, name
        best = max(cands, key=lambda f: f.c)
        chain.append(best)
        parents = [best]
    return chain, None


def covered_share(frames, regex, total):
    spans = sorted(((f.x, f.x + f.c) for f in frames if re.search(regex, f.name)),
                   key=lambda s: (s[0], -s[1]))
    covered, end = 0, 0
    for a, b in spans:
        if b <= end:
            continue
        covered += b - max(a, end)
        end = b
    return 100.0 * covered / total if total else 0.0


def check_static(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        check(False, f"{path} is not well-formed XML: {e}")
        return None
    check(root.tag == SVG_NS + "svg", f"{path}: the root element is {root.tag}, not svg")
    text = data.decode("utf-8")
    check(text.count("http") == 1, f"{path}: refers to something outside it (http)")
    check("href" not in text, f"{path}: refers to something outside it (href)")
    return root


def check_drawn(frames, comm, names, min_share):
    chain, missing = chain_of(frames, comm, names)
    check(missing is None, f"frame {missing} not drawn under {comm};{';'.join(names)}")
    for f in chain:
        check(f.width > 0 and "hidden" not in f.cls, f"{f} is not drawn")
    proc = [f for f in frames if f.name == comm and "process" in f.cls]
    if chain and proc:
        share = chain[-1].c / max(p.c for p in proc)
        check(share >= min_share,
              f"{chain[-1].name} has {share:.1%} of {comm}'s samples, expected {min_share:.0%}")
    return chain


def check_search(frames, root, regex, total):
    for f in frames:
        want = re.search(regex, f.name) is not None
        check(("match" in f.cls) == want,
              f"#s={regex}: {f} {'not ' if want else ''}highlighted")
    matched = root.find(f".//{SVG_NS}text[@id='matched']")
    shown = matched.text if matched is not None else None
    want = f"Matched: {covered_share(frames, regex, total):.2f}%"
    check(shown == want, f"#s={regex}: shows {shown!r}, expected {want!r}")


def check_zoom(frames, target):
    z = max((f for f in frames if f.name == target.name and f.y == target.y),
            key=lambda f: f.c)
    check(abs(z.px - PAD) < 0.01 and abs(z.width - DRAW_W) < 0.01,
          f"#zoom={z.name}: it does not fill the width: {z}")
    for f in frames:
        ancestor = f.y > z.y and z.inside(f)
        inside = f.y <= z.y and f.inside(z) and f.c / z.c * DRAW_W >= 0.1
        if ancestor:
            check("parent" in f.cls and "hidden" not in f.cls and abs(f.width - DRAW_W) < 0.01,
                  f"#zoom={z.name}: ancestor {f} not kept at full width")
        elif inside:
            want_w = f.c / z.c * DRAW_W
            want_x = PAD + (f.x - z.x) / z.c * DRAW_W
            check("hidden" not in f.cls and abs(f.width - want_w) < 0.01
                  and abs(f.px - want_x) < 0.01,
                  f"#zoom={z.name}: {f} should be at x={want_x:.2f} width {want_w:.2f}")
        else:
            check("hidden" in f.cls, f"#zoom={z.name}: {f} outside it is not hidden")


def png_pixels(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, type {ctype}, interlace {interlace})")
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xff
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def highlighted_pixels(chromium, path, fragment, height, profile_dir, tmp):
    png = os.path.join(tmp, "shot.png")
    url = "file://" + urllib.parse.quote(os.path.abspath(path)) + fragment
    if run_chromium(chromium, url, [f"--window-size=1200,{height}", "--screenshot=" + png],
                    profile_dir) is None:
        return None
    if not check(os.path.exists(png), f"no screenshot of {url}"):
        return None
    with open(png, "rb") as f:
        _, _, rows = png_pixels(f.read())
    return sum(1 for row in rows for px in row if px == HIGHLIGHT)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("svg")
    ap.add_argument("--comm", required=True)
    ap.add_argument("--frames", required=True)
    ap.add_argument("--generate")
    ap.add_argument("--min-share", type=float, default=0.5)
    ap.add_argument("--keep", help="copy the screenshot of the search here")
    args = ap.parse_args()
    names = args.frames.split(",")

    if args.generate:
        r = subprocess.run([args.generate, args.svg])
        if r.returncode != 0:
            print(f"FAIL: {args.generate} exited {r.returncode}", file=sys.stderr)
            return 1
    chromium = find_chromium()
    root = check_static(args.svg)
    if root is None:
        return 1
    if not chromium:
        print("SKIP: chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 77
    total = int(root.get("data-total"))
    height = int(root.get("height"))
    with tempfile.TemporaryDirectory() as tmp:
        profile_dir = os.path.join(tmp, "profile")
        dom, frames = load_dom(chromium, args.svg, "", profile_dir)
        chain = check_drawn(frames, args.comm, names, args.min_share) if dom is not None else []
        print(f"{len(frames)} frames; {args.comm};{';'.join(f.name for f in chain)}",
              file=sys.stderr)

        regex = "^(" + "|".join(re.escape(n) for n in names[1:]) + ")$"
        dom, frames = load_dom(chromium, args.svg, "#s=" + urllib.parse.quote(regex, safe=""),
                               profile_dir)
        if dom is not None:
            check_search(frames, dom, regex, total)

        if len(chain) > 2:
            mid = chain[len(chain) // 2]
            dom, frames = load_dom(chromium, args.svg, "#zoom=" + urllib.parse.quote(mid.name),
                                   profile_dir)
            if dom is not None:
                check_zoom(frames, mid)

        plain = highlighted_pixels(chromium, args.svg, "", height, profile_dir, tmp)
        lit = highlighted_pixels(chromium, args.svg, "#s=" + urllib.parse.quote(names[-1]),
                                 height, profile_dir, tmp)
        if args.keep and os.path.exists(os.path.join(tmp, "shot.png")):
            shutil.copy(os.path.join(tmp, "shot.png"), args.keep)
        if plain is not None and lit is not None:
            print(f"highlighted pixels: {plain} before, {lit} after #s={names[-1]}",
                  file=sys.stderr)
            check(plain == 0, f"{plain} pixels in the highlight color without a search")
            check(lit > 1000, f"#s={names[-1]}: only {lit} pixels highlighted")
    if failures:
        print(f"{failures} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
