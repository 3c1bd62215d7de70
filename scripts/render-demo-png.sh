#!/usr/bin/env bash
# Renders a still of the demo's final frame to docs/demo.png with a real
# browser: headless Chromium from Debian's packages (installed here when
# missing), at twice the SVG's pixel size so the labels are readable.
# Segments are coloured by strain on cable-debug's fixed scale (full colour
# at +-5 %), not normalised to the largest strain of the picture.
# Not run by CI. Usage: scripts/render-demo-png.sh [SECONDS] [SCALE]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-4}"
scale="${2:-2}"

if ! command -v chromium >/dev/null 2>&1; then
    echo "installing chromium from Debian's packages" >&2
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi

cargo build --release --bin cable
mkdir -p docs
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A still of the final frame with strain colouring and legend.
"${CARGO_TARGET_DIR:-target}/release/cable" demo --seconds "$seconds" --no-ascii --svg "$work/demo.svg" --svg-still

# The SVG's own pixel size, so the screenshot holds all of it.
read -r width height < <(sed -n 's/^<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1 \2/p' "$work/demo.svg" | head -n 1)
cat > "$work/page.html" <<HTML
<!doctype html>
<html><head><style>html,body{margin:0;background:#fff}img{display:block}</style></head>
<body><img src="demo.svg" width="$width" height="$height"></body></html>
HTML

chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$work/profile" --force-device-scale-factor="$scale" \
    --screenshot="$PWD/docs/demo.png" --window-size="$width,$height" \
    "file://$work/page.html"
echo "wrote docs/demo.png (${width}x${height} CSS pixels at scale ${scale})"
