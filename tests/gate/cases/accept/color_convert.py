"""Converts colours between hex, RGB and HSL."""
import re

NAME = "color_convert"
DESCRIPTION = "Converts a colour given as #hex, rgb(r, g, b) or a list of three ints into hex, RGB and HSL."
PARAMS = {
    "type": "object",
    "properties": {
        "color": {
            "oneOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}, "minItems": 3, "maxItems": 3},
            ]
        }
    },
    "required": ["color"],
}
EXAMPLES = [
    {"params": {"color": "#1E90FF"}, "result": {"hex": "#1e90ff", "rgb": [30, 144, 255], "hsl": [210, 100, 56]}},
    {"params": {"color": "#fc0"}, "result": {"hex": "#ffcc00", "rgb": [255, 204, 0], "hsl": [48, 100, 50]}},
    {"params": {"color": "rgb(0, 0, 0)"}, "result": {"hex": "#000000", "rgb": [0, 0, 0], "hsl": [0, 0, 0]}},
    {"params": {"color": "blue-ish"}, "result": {"error": "unrecognised colour: 'blue-ish'"}},
]

HEX = r"#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})"
RGB = r"rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)"


def parse(color: str | list[int]) -> list[int] | None:
    if isinstance(color, list):
        return color
    if found := re.fullmatch(HEX, color.strip()):
        digits = found.group(1)
        if len(digits) == 3:
            digits = "".join(ch * 2 for ch in digits)
        return [int(digits[i : i + 2], 16) for i in (0, 2, 4)]
    if found := re.fullmatch(RGB, color.strip()):
        values = [int(part) for part in found.groups()]
        return values if all(v <= 255 for v in values) else None
    return None


def to_hsl(r: int, g: int, b: int) -> list[int]:
    red, green, blue = r / 255, g / 255, b / 255
    high, low = max(red, green, blue), min(red, green, blue)
    lightness = (high + low) / 2
    if high == low:
        return [0, 0, round(lightness * 100)]
    delta = high - low
    saturation = delta / (2 - high - low) if lightness > 0.5 else delta / (high + low)
    if high == red:
        hue = (green - blue) / delta % 6
    elif high == green:
        hue = (blue - red) / delta + 2
    else:
        hue = (red - green) / delta + 4
    return [round(hue * 60) % 360, round(saturation * 100), round(lightness * 100)]


def run(params):
    rgb = parse(params["color"])
    if rgb is None:
        return {"error": f"unrecognised colour: {params['color']!r}"}
    return {"hex": "#" + "".join(f"{v:02x}" for v in rgb), "rgb": rgb, "hsl": to_hsl(*rgb)}
