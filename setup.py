"""Builds the extension _microarena with CMake (python/CMakeLists.txt), offline.

    python3 -m venv --system-site-packages venv
    venv/bin/pip install --no-build-isolation --no-index .

MICROARENA_BUILD_DIR: the CMake build folder. Default: build/release when it
is configured with MICROARENA_PYTHON=ON (cmake --preset release; only the
module's target is built there), else build/pip, configured here.
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def _configured_with_python(build_dir):
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as cache:
            return "MICROARENA_PYTHON:BOOL=ON" in cache.read()
    except OSError:
        return False


class CMakeBuild(build_ext):
    """Configures and builds the _microarena target, then copies the module."""

    def build_extension(self, ext):
        build_dir = os.environ.get("MICROARENA_BUILD_DIR")
        release = os.path.join(ROOT, "build", "release")
        if not build_dir and _configured_with_python(release):
            build_dir = release
        build_dir = os.path.abspath(build_dir or os.path.join(ROOT, "build", "pip"))
        if not _configured_with_python(build_dir):
            subprocess.check_call([
                "cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DMICROARENA_PYTHON=ON",
                "-DMICROARENA_BUILD_TESTS=OFF", "-DMICROARENA_BUILD_BENCH=OFF",
                f"-DPython3_EXECUTABLE={sys.executable}"])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "_microarena", "-j", jobs])
        built = glob.glob(os.path.join(build_dir, "python", "microarena", "_microarena*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one _microarena module in {build_dir}/python/microarena, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)

os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)

setup(
    packages=["microarena"],
    package_dir={"": "python"},
    ext_modules=[Extension("microarena._microarena", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Metadata under build/, not in the source tree.
    options={"egg_info": {"egg_base": os.path.join(ROOT, "build")}},
)
