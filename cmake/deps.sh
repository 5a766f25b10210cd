#!/usr/bin/env bash
# Installs the Debian 12 packages PathScope needs that are missing, and nothing else: a second
# run with everything present neither calls apt nor prints anything but a one-line check.
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config libsqlite3-dev sqlite3 zlib1g-dev libpng-dev libgtest-dev libgmock-dev
          libbenchmark-dev qt6-base-dev qt6-svg-dev libqcustomplot-dev xvfb xauth
          locales                   # locale sources: the history tests build de_DE.UTF-8 with localedef
          clang libclang-rt-14-dev   # clang and its libFuzzer runtime: the fuzz preset
          clang-format               # the style check of cmake/test.sh (.clang-format)
          libgif-dev libavcodec-dev libavformat-dev libswscale-dev)  # animation movies: GIF, MP4 (H.264)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "pathscope: installing missing Debian packages: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "pathscope: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "pathscope: all Debian packages present"
fi

# The CUDA toolkit (nvcc 12.4+ for device tail launches; 13.0 is what we test) does not come
# from Debian's main archive: say where to get it rather than failing inside CMake.
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "pathscope: the CUDA toolkit was not found (no nvcc on PATH or in /usr/local/cuda/bin)." >&2
  echo "           Install it from https://developer.nvidia.com/cuda-downloads (Debian 12 network repo)." >&2
  exit 1
fi
