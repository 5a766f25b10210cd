#!/usr/bin/env python3
"""Random query pairs for generated maps, as MovingAI .scen files (the benchmark inputs of the
README's generated-map rows).

    tests/bench/random_scen.py [--pairs 50] [--seed 7] F.map [G.map ...]

writes F.map.scen beside each map: `--pairs` (start, goal) pairs drawn with Python's
random.Random(seed) from the map's largest region (cells joined by orthogonal steps: under
MovingAI's rule a diagonal step needs both orthogonal cells free, so these are its regions too).
The optimal-length column is 0, which scenario readers take as no length: `bench --family scen`
(either metric), `pathscope-cli scen` and the Scenarios dock check such queries against
astar.cpu's costs.
"""
import argparse
import random
from collections import deque


def read_map(path):
    with open(path) as f:
        lines = f.read().split("\n")
    header = {}
    i = 0
    while lines[i].strip() != "map":
        key, value = lines[i].split()
        header[key] = value
        i += 1
    width, height = int(header["width"]), int(header["height"])
    rows = lines[i + 1 : i + 1 + height]
    return width, height, [[c in ".G" for c in row[:width]] for row in rows]


def largest_region(width, height, free):
    seen = [[False] * width for _ in range(height)]
    best = []
    for y in range(height):
        for x in range(width):
            if not free[y][x] or seen[y][x]:
                continue
            seen[y][x] = True
            queue, cells = deque([(x, y)]), []
            while queue:
                cx, cy = queue.popleft()
                cells.append((cx, cy))
                for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                    if 0 <= nx < width and 0 <= ny < height and free[ny][nx] and not seen[ny][nx]:
                        seen[ny][nx] = True
                        queue.append((nx, ny))
            if len(cells) > len(best):
                best = cells
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("maps", nargs="+")
    parser.add_argument("--pairs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for path in args.maps:
        width, height, free = read_map(path)
        region = largest_region(width, height, free)
        if not region:
            raise SystemExit(f"{path}: no free cell")
        rng = random.Random(args.seed)
        name = path.split("/")[-1]
        with open(path + ".scen", "w") as out:
            out.write("version 1\n")
            for _ in range(args.pairs):
                (sx, sy), (gx, gy) = rng.choice(region), rng.choice(region)
                out.write(f"0\t{name}\t{width}\t{height}\t{sx}\t{sy}\t{gx}\t{gy}\t0\n")


if __name__ == "__main__":
    main()
