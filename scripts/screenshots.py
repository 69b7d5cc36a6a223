#!/usr/bin/env python3
"""Renders the README's pictures from a real terminal session, so that they stay true.

Runs the binary in tmux (its own server socket, a fixed 160x48 screen), types the keys a person
would, waits until the screen stops changing, captures it with its colours (`capture-pane -e -p`)
and draws the captured cells into a PNG: each character in a monospace font on its background, and
the block elements (the half blocks of the image preview) and box drawing as filled shapes, as a
terminal draws them. Nothing is edited by hand.

- `inspector.png`: the inspector on testdata's Object Detection shard, a record chosen, its
  `image/object/class/text` feature selected in the tree with its bytes highlighted in the hex
  pane, and the record's image with its boxes in the preview.
- `hex-explain.png`: `tfr-inspect hex --explain` on the record of the README's "Learn the wire
  format" walkthrough, typed at a shell prompt.

Needs tmux, Pillow (`pip install -r scripts/requirements-differential.txt`) and DejaVu Sans Mono
(Debian/Ubuntu: `apt-get install fonts-dejavu-core`; elsewhere give any monospace TrueType font
with `--font`).

Usage: scripts/screenshots.py [--binary target/debug/tfr-inspect] [--out docs]
Exits 1 (saying what it waited for and what the screen showed) when a step does not come.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata

from PIL import Image, ImageDraw, ImageFont

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH, HEIGHT = 160, 48
# The walkthrough's explanations run to 170 columns: this width shows each on one line.
EXPLAIN_WIDTH = 172
DETECTION = "testdata/realworld/detection_train.record-00000-of-00001"
WALKTHROUGH = "tfr-inspect hex --explain testdata/mnist_like.tfrecord -n 0"

FONT_DIRS = [
    "/usr/share/fonts/truetype/dejavu",  # Debian, Ubuntu (fonts-dejavu-core)
    "/usr/share/fonts/dejavu",  # Fedora, Arch
    "/usr/share/fonts/TTF",
    "/usr/local/share/fonts",
    "/Library/Fonts",
    os.path.expanduser("~/Library/Fonts"),
    os.path.expanduser("~/.local/share/fonts"),
]

# The terminal's colours: a dark background and the 16 ANSI colours as xterm draws them on one.
BACKGROUND = (24, 24, 24)
FOREGROUND = (212, 212, 212)
ANSI16 = [
    (0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255),
]  # fmt: skip


class Failed(Exception):
    """A step that did not come; the message says which and what the screen showed."""


def xterm256(n):
    """The RGB value of xterm's 256-colour palette entry `n`."""
    if n < 16:
        return ANSI16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    level = 8 + 10 * (n - 232)
    return (level, level, level)


# ---------------------------------------------------------------------------------------------
# tmux


class Terminal:
    """A tmux server of its own (socket named after this process) holding one window of a fixed
    size, running `command`. Used as a context manager: leaving it, also on an error, kills the
    server and removes its socket."""

    def __init__(self, command, env, width=WIDTH):
        self.socket = f"tfr-inspect-screenshots-{os.getpid()}"
        self.command, self.env, self.width = command, env, width

    def __enter__(self):
        # No status line: the program gets every row of the window.
        environment = [f"{k}={v}" for k, v in self.env.items()]
        try:
            self.tmux(
                "start-server", ";",
                "set-option", "-g", "status", "off", ";",
                "new-session", "-d", "-s", "shot", "-x", str(self.width), "-y", str(HEIGHT),
                "-c", ROOT, "env", *environment, *self.command,
            )  # fmt: skip
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *_):
        self.close()

    def tmux(self, *args, check=True):
        result = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if check and result.returncode != 0:
            raise Failed(f"tmux {args[0]} failed: {result.stderr.strip()}")
        return result.stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "shot", *keys)

    def type(self, text):
        self.tmux("send-keys", "-t", "shot", "-l", text)

    def screen(self, colours=False):
        return self.tmux("capture-pane", "-p", "-t", "shot", *(["-e"] if colours else []))

    def wait_for(self, what, ok, timeout=30.0):
        """Waits until the screen shows `what` (`ok` holds) and has not changed for half a
        second, then returns the screen with its colours."""
        start = time.monotonic()
        last, since = None, start
        while True:
            try:
                screen = self.screen(colours=True)
            except Failed as why:
                raise Failed(f"the window closed (its program ended?) before {what}: {why}")
            now = time.monotonic()
            if screen != last:
                last, since = screen, now
            elif ok(plain(screen)) and now - since >= 0.5:
                return screen
            if now - start > timeout:
                raise Failed(f"timed out after {timeout:.0f} s waiting for {what}; the screen:\n"
                             + plain(screen))
            time.sleep(0.1)

    def close(self):
        socket = self.tmux("display-message", "-p", "#{socket_path}", check=False).strip()
        self.tmux("kill-server", check=False)
        if socket and os.path.exists(socket):
            os.remove(socket)


SGR = re.compile(r"\x1b\[([0-9;:]*)m")
OTHER_ESCAPE = re.compile(r"\x1b(\[[0-9;:?]*[A-Za-z]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z])")


def plain(screen):
    return OTHER_ESCAPE.sub("", SGR.sub("", screen))


# ---------------------------------------------------------------------------------------------
# Captured text to cells


class Style:
    __slots__ = ("fg", "bg", "bold", "dim", "italic", "underline", "reverse")

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def copy(self):
        other = Style()
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def apply(self, params):
        codes = [int(p) if p.isdigit() else 0 for p in re.split("[;:]", params)] if params else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c in (38, 48, 58) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    colour, i = xterm256(codes[i + 2] % 256), i + 3
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    colour, i = tuple(v % 256 for v in codes[i + 2 : i + 5]), i + 5
                else:
                    colour, i = None, len(codes)
                if c == 38:
                    self.fg = colour
                elif c == 48:
                    self.bg = colour
                continue
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 3:
                self.italic = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37:
                self.fg = ANSI16[c - 30]
            elif c == 39:
                self.fg = None
            elif 40 <= c <= 47:
                self.bg = ANSI16[c - 40]
            elif c == 49:
                self.bg = None
            elif 90 <= c <= 97:
                self.fg = ANSI16[c - 90 + 8]
            elif 100 <= c <= 107:
                self.bg = ANSI16[c - 100 + 8]
            i += 1

    def colours(self):
        """(foreground, background) as drawn: reverse swaps them, dim fades the foreground."""
        fg, bg = self.fg or FOREGROUND, self.bg or BACKGROUND
        if self.reverse:
            fg, bg = bg, fg
        if self.dim:
            fg = tuple((a + b) // 2 for a, b in zip(fg, bg))
        return fg, bg


def cells(screen):
    """The screen as rows of (character, style, width) cells, HEIGHT rows."""
    rows = []
    for line in screen.split("\n")[:HEIGHT]:
        style = Style()
        row = []
        pos = 0
        while pos < len(line):
            m = SGR.match(line, pos)
            if m:
                style.apply(m.group(1))
                pos = m.end()
                continue
            m = OTHER_ESCAPE.match(line, pos)
            if m:
                pos = m.end()
                continue
            ch = line[pos]
            pos += 1
            if unicodedata.combining(ch) and row:
                prev = row[-1]
                row[-1] = (prev[0] + ch, prev[1], prev[2])
                continue
            width = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
            row.append((ch, style.copy(), width))
        rows.append(row)
    while len(rows) < HEIGHT:
        rows.append([])
    return rows


# ---------------------------------------------------------------------------------------------
# Cells to pixels

# Block elements as the rectangles they fill, in eighths of a cell: (x0, y0, x1, y1).
BLOCKS = {
    "█": [(0, 0, 8, 8)],
    "▀": [(0, 0, 8, 4)],
    "▄": [(0, 4, 8, 8)],
    "▌": [(0, 0, 4, 8)],
    "▐": [(4, 0, 8, 8)],
    "▔": [(0, 0, 8, 1)],
    "▕": [(7, 0, 8, 8)],
    "▖": [(0, 4, 4, 8)],
    "▗": [(4, 4, 8, 8)],
    "▘": [(0, 0, 4, 4)],
    "▝": [(4, 0, 8, 4)],
    "▙": [(0, 0, 4, 8), (4, 4, 8, 8)],
    "▚": [(0, 0, 4, 4), (4, 4, 8, 8)],
    "▛": [(0, 0, 8, 4), (0, 4, 4, 8)],
    "▜": [(0, 0, 8, 4), (4, 4, 8, 8)],
    "▞": [(4, 0, 8, 4), (0, 4, 4, 8)],
    "▟": [(4, 0, 8, 8), (0, 4, 4, 8)],
}
for n in range(1, 8):
    BLOCKS["▁▂▃▄▅▆▇"[n - 1]] = [(0, 8 - n, 8, 8)]
    BLOCKS["▏▎▍▌▋▊▉"[n - 1]] = [(0, 0, n, 8)]
SHADES = {"░": 0.25, "▒": 0.5, "▓": 0.75}

# Box drawing as the arms that leave the cell's centre: up, right, down, left; 1 light, 2 heavy,
# 3 double.
BOX = {}
for chars, arms in [
    ("─━═", (0, 1, 0, 1)), ("│┃║", (1, 0, 1, 0)),
    ("┌┏╔", (0, 1, 1, 0)), ("┐┓╗", (0, 0, 1, 1)), ("└┗╚", (1, 1, 0, 0)), ("┘┛╝", (1, 0, 0, 1)),
    ("├┣╠", (1, 1, 1, 0)), ("┤┫╣", (1, 0, 1, 1)), ("┬┳╦", (0, 1, 1, 1)), ("┴┻╩", (1, 1, 0, 1)),
    ("┼╋╬", (1, 1, 1, 1)), ("╴╸", (0, 0, 0, 1)), ("╵╹", (1, 0, 0, 0)), ("╶╺", (0, 1, 0, 0)),
    ("╷╻", (0, 0, 1, 0)),
]:  # fmt: skip
    for weight, ch in enumerate(chars, 1):
        BOX[ch] = tuple(a * weight for a in arms)
ROUNDED = {"╭": (0, 1, 1, 0), "╮": (0, 0, 1, 1), "╰": (1, 1, 0, 0), "╯": (1, 0, 0, 1)}


def find_font(name, given=None):
    if given:
        return given
    for folder in FONT_DIRS:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    if shutil.which("fc-match"):
        found = subprocess.run(
            ["fc-match", "-f", "%{file}", name.rsplit(".", 1)[0]], capture_output=True, text=True
        ).stdout.strip()
        if found.endswith(name):
            return found
    return None


class Renderer:
    def __init__(self, font_path, size):
        regular = find_font("DejaVuSansMono.ttf", font_path)
        if regular is None:
            raise Failed(
                "DejaVu Sans Mono not found: install it (Debian/Ubuntu: apt-get install "
                "fonts-dejavu-core) or give a monospace TrueType font with --font"
            )
        self.fonts = {(False, False): ImageFont.truetype(regular, size)}
        for bold, italic, name in [
            (True, False, "DejaVuSansMono-Bold.ttf"),
            (False, True, "DejaVuSansMono-Oblique.ttf"),
            (True, True, "DejaVuSansMono-BoldOblique.ttf"),
        ]:
            path = None if font_path else find_font(name)
            self.fonts[(bold, italic)] = ImageFont.truetype(path or regular, size)
        font = self.fonts[(False, False)]
        ascent, descent = font.getmetrics()
        self.cw = round(font.getlength("M"))
        self.ch = ascent + descent
        self.ascent = ascent
        self.line = max(1, round(size / 14))

    def render(self, screen, path, columns=WIDTH):
        cw, ch = self.cw, self.ch
        pad = cw
        image = Image.new("RGB", (columns * cw + 2 * pad, HEIGHT * ch + 2 * pad), BACKGROUND)
        draw = ImageDraw.Draw(image)
        for y, row in enumerate(cells(screen)):
            x = 0
            for text, style, width in row:
                if x >= columns:
                    break
                fg, bg = style.colours()
                left, top = pad + x * cw, pad + y * ch
                right, bottom = left + width * cw, top + ch
                draw.rectangle((left, top, right - 1, bottom - 1), fill=bg)
                if not self.shape(draw, text, fg, bg, left, top):
                    font = self.fonts[(style.bold, style.italic)]
                    if text.strip():
                        draw.text((left, top), text, font=font, fill=fg)
                if style.underline:
                    draw.rectangle(
                        (left, top + self.ascent + 1, right - 1, top + self.ascent + self.line),
                        fill=fg,
                    )
                x += width
        # 256 colours are plenty (a screen of text, a preview of a few hundred cells) and make the
        # file a quarter of its size; without dithering, flat colours stay flat.
        image = image.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        image.save(path, optimize=True)

    def shape(self, draw, text, fg, bg, left, top):
        """Draws a block element or a box-drawing character as shapes, filling the cell edge to
        edge as a terminal does (a font's glyph would leave gaps between rows); False when
        `text` is neither."""
        cw, ch = self.cw, self.ch
        if text in BLOCKS:
            for x0, y0, x1, y1 in BLOCKS[text]:
                draw.rectangle(
                    (left + x0 * cw // 8, top + y0 * ch // 8,
                     left + x1 * cw // 8 - 1, top + y1 * ch // 8 - 1),
                    fill=fg,
                )  # fmt: skip
            return True
        if text in SHADES:
            share = SHADES[text]
            colour = tuple(round(f * share + b * (1 - share)) for f, b in zip(fg, bg))
            draw.rectangle((left, top, left + cw - 1, top + ch - 1), fill=colour)
            return True
        cx, cy = left + cw // 2, top + ch // 2
        if text in ROUNDED:
            up, right, down, _ = ROUNDED[text]
            r = min(cw, ch) // 2
            # The arc's centre sits diagonally inside the corner, the arms run on from its ends.
            ox = cx + (r if right else -r)
            oy = cy + (r if down else -r)
            start = {(1, 1): 180, (0, 1): 270, (1, 0): 90, (0, 0): 0}[(right, down)]
            draw.arc((ox - r, oy - r, ox + r, oy + r), start, start + 90, fill=fg, width=self.line)
            lw = self.line
            if right:
                draw.rectangle((ox, oy - r, left + cw - 1, oy - r + lw - 1), fill=fg)
            else:
                draw.rectangle((left, oy - r, ox, oy - r + lw - 1), fill=fg)
            if down:
                draw.rectangle((ox - r, oy, ox - r + lw - 1, top + ch - 1), fill=fg)
            else:
                draw.rectangle((ox - r, top, ox - r + lw - 1, oy), fill=fg)
            return True
        if text not in BOX:
            return False
        for arm, weight in enumerate(BOX[text]):
            if not weight:
                continue
            # A double line is two light lines a pixel or two apart.
            offsets = [0] if weight < 3 else [-self.line - 1, self.line + 1]
            thick = self.line * (2 if weight == 2 else 1)
            for off in offsets:
                half = thick // 2
                if arm in (0, 2):  # up, down
                    x0 = cx + off - half
                    y0, y1 = (top, cy + half) if arm == 0 else (cy - half, top + ch - 1)
                    draw.rectangle((x0, y0, x0 + thick - 1, y1), fill=fg)
                else:  # right, left
                    y0 = cy + off - half
                    x0, x1 = (cx - half, left + cw - 1) if arm == 1 else (left, cx + half)
                    draw.rectangle((x0, y0, x1, y0 + thick - 1), fill=fg)
        return True


# ---------------------------------------------------------------------------------------------
# The sessions


def environment(binary):
    return {
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PATH": os.path.dirname(binary) + os.pathsep + os.environ.get("PATH", ""),
        "PS1": "$ ",
        "HISTFILE": "/dev/null",
        "HOME": os.environ.get("HOME", "/"),
    }


def inspector(binary, renderer, path):
    with Terminal([binary, DETECTION], environment(binary)) as terminal:
        terminal.wait_for("the frame list", lambda s: "image/object/class/text" in s)
        # Record 2: three boxes of three classes.
        terminal.keys("j", "j")
        terminal.wait_for("record 2 selected", lambda s: "record 2 " in s)
        # To the tree, down to the class names, open them and select the second: its bytes light
        # up in the hex pane, the bytes of the nodes around it in a fainter shade.
        terminal.keys("Tab")
        move_to(terminal, "image/object/class/text")
        terminal.keys("Enter")
        move_to(terminal, '[1]  "person"')
        screen = terminal.wait_for("the preview with its boxes", lambda s: "■ person" in s)
        renderer.render(screen, path)


def move_to(terminal, row):
    """Moves the tree's cursor down (a key at a time, at most 40) until the selected row, drawn
    in reverse video, starts with `row`."""
    for _ in range(40):
        screen = terminal.wait_for("the tree to settle", lambda s: True, timeout=10)
        if any(line.strip(" ▸▾").startswith(row) for line in selected(screen)):
            return
        terminal.keys("j")
    raise Failed(f"the tree never selected {row!r}; the screen:\n" + plain(screen))


def selected(screen):
    """The text of the cells drawn in reverse video, a string per row."""
    return ["".join(text for text, style, _ in row if style.reverse) for row in cells(screen)]


def hex_explain(binary, renderer, path):
    # As many of the walkthrough's lines as fit under the command, each as many rows as it
    # wraps to (none at this width today), with the prompt after them.
    run = subprocess.run(
        [binary, *WALKTHROUGH.split()[1:]], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    if run.returncode != 0 or not run.stdout:
        raise Failed(f"`{WALKTHROUGH}` exited {run.returncode}: {run.stderr.strip()}")
    lines = run.stdout.splitlines()
    rows, count = 2, 0
    for line in lines:
        rows += max(1, -(-len(line) // EXPLAIN_WIDTH))
        if rows > HEIGHT:
            break
        count += 1
    shell = ["bash", "--norc", "--noprofile", "-i"]
    with Terminal(shell, environment(binary), width=EXPLAIN_WIDTH) as terminal:
        terminal.wait_for("the shell prompt", lambda s: s.startswith("$"))
        # The walkthrough's command; head keeps its start on the screen, and --color always the
        # colours it has on a terminal.
        command = f"{WALKTHROUGH} --color always | head -n {count}"
        terminal.type(command)
        terminal.keys("Enter")
        screen = terminal.wait_for(
            "the walkthrough's output under its command",
            lambda s: s.startswith(f"$ {command}") and s.rstrip().endswith("$"),
        )
        renderer.render(screen, path, EXPLAIN_WIDTH)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default="target/debug/tfr-inspect")
    parser.add_argument(
        "--out", default=os.path.join(ROOT, "docs"), help="where the PNGs go (default docs/)"
    )
    parser.add_argument("--font", help="a monospace TrueType font (default DejaVu Sans Mono)")
    parser.add_argument("--size", type=int, default=13, help="font size in pixels (default 13)")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit(f"{args.binary}: no such binary (build it with `cargo build`)")
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed (apt-get install tmux)")
    os.makedirs(args.out, exist_ok=True)
    try:
        renderer = Renderer(args.font, args.size)
        for name, shoot in [("inspector.png", inspector), ("hex-explain.png", hex_explain)]:
            path = os.path.join(args.out, name)
            # Written beside, then renamed: a failed run leaves the previous picture whole.
            fd, scratch = tempfile.mkstemp(suffix=".png", dir=args.out)
            os.close(fd)
            try:
                shoot(binary, renderer, scratch)
                os.chmod(scratch, 0o644)
                os.replace(scratch, path)
            finally:
                if os.path.exists(scratch):
                    os.remove(scratch)
            print(f"{path}: {os.path.getsize(path)} bytes")
    except (Failed, subprocess.TimeoutExpired) as why:
        sys.exit(f"screenshots: {why}")


if __name__ == "__main__":
    main()
