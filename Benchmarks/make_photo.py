#!/usr/bin/env python3
"""Writes a photo-like test image: smooth light, texture and noise, so that it
compresses like a photograph rather than like flat colour.

    "$(scripts/python-venv)" Benchmarks/make_photo.py WIDTH HEIGHT OUT.(png|jpg) [--mode RGB|RGBA] [--seed N]

Its grain compresses unlike a real photo (every band looks like noise), so
the benchmarks now crop real phone photos (make_inputs.py); this is kept for
sizes no real photo here has. It needs Pillow: run it with the project's
own Python (scripts/python-venv), not the system's.
"""
import argparse

from PIL import Image, ImageChops, ImageFilter

parser = argparse.ArgumentParser()
parser.add_argument("width", type=int)
parser.add_argument("height", type=int)
parser.add_argument("output")
parser.add_argument("--mode", default="RGB", choices=["RGB", "RGBA"])
parser.add_argument("--seed", type=int, default=1)
args = parser.parse_args()
w, h = args.width, args.height

# Structure at several scales: a fractal for edges and texture, gradients for
# light, blurred noise for surfaces, fine noise for sensor grain.
fractal = Image.effect_mandelbrot((w, h), (-2.2 + 0.01 * args.seed, -1.2, 1.0, 1.2), 90)
light = Image.linear_gradient("L").resize((w, h)).rotate(30, expand=False)
glow = Image.radial_gradient("L").resize((w, h))
surface = Image.effect_noise((w // 8, h // 8), 60).resize((w, h), Image.BICUBIC)
grain = Image.effect_noise((w, h), 12)

r = ImageChops.add(ImageChops.multiply(fractal, light), grain, scale=1.0, offset=-64)
g = ImageChops.add(ImageChops.screen(surface, glow.filter(ImageFilter.GaussianBlur(3))), grain, scale=1.0, offset=-96)
b = ImageChops.add(ImageChops.blend(surface, fractal, 0.4), Image.effect_noise((w, h), 10), scale=1.0, offset=-80)
bands = [r, g, b]
if args.mode == "RGBA":
    bands.append(ImageChops.invert(glow).point(lambda v: 96 + v * 159 // 255))
image = Image.merge(args.mode, bands)
if args.output.lower().endswith((".jpg", ".jpeg")):
    image.save(args.output, quality=90)
else:
    image.save(args.output, compress_level=6)
