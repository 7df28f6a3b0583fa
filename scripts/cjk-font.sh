#!/usr/bin/env bash
# A CJK font for the 中文 README screenshots, for this user only: Noto Sans SC (SIL Open Font
# License) taken from the `justmytype-intl-cjk` wheel on PyPI (pip download, no install, no
# apt), unpacked into a cache folder with a fontconfig file that adds it to the system fonts.
# Nothing is installed system-wide and the font never enters the repository.
#
#   eval "$(scripts/cjk-font.sh)"        # prints: export FONTCONFIG_FILE=<folder>/fonts.conf
#   UPDATE_SCREENSHOTS=1 .venv/bin/python -m pytest tests/dashboard/test_browser_chinese_ui.py
#
# Usage: scripts/cjk-font.sh [FOLDER]  (default: ~/.cache/memory-engine-fonts; PIP=... to pick pip)
set -euo pipefail
DIR="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/memory-engine-fonts}"
PIP="${PIP:-.venv/bin/pip}"
[ -x "$PIP" ] || PIP="$(command -v pip3 || command -v pip)"
PACKAGE="justmytype-intl-cjk==0.1.0"
FONT="NotoSansSC[wght].ttf"
mkdir -p "$DIR"
if [ ! -f "$DIR/$FONT" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$PIP" download --no-deps --quiet --dest "$tmp" "$PACKAGE" >&2
  python3 - "$tmp" "$DIR" "$FONT" <<'PY'
import pathlib, sys, zipfile
tmp, dest, font = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
(wheel,) = tmp.glob("*.whl")
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.endswith(("/notosanssc/" + font, "/notosanssc/OFL.txt")):
            (dest / pathlib.Path(name).name).write_bytes(z.read(name))
if not (dest / font).exists():
    sys.exit(f"{font} not found in {wheel.name}")
PY
fi
cat > "$DIR/fonts.conf" <<CONF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>$DIR</dir>
  <cachedir>$DIR/cache</cachedir>
</fontconfig>
CONF
echo "export FONTCONFIG_FILE=$DIR/fonts.conf"
