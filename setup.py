"""The Python module rope (docs/python.md), built by the project's CMake: `pip install --no-build-isolation .`
in a virtual environment. The extension rope._rope is the CMake target rope_python; the version is the one of
project(rope VERSION ...) in CMakeLists.txt, the command line's. Nothing is written into the source tree: the
CMake tree (a Release tree of the library and the module alone), setuptools' build directory and its egg-info go
to a temporary directory (ROPE_PIP_BUILD_DIR names another, kept), deleted when the build ends. ROPE_CMAKE_BUILD_DIR
names a configured build tree to build the module in instead (nothing it already has is compiled again). Under
`pip install -v` the configure and compile steps print as they go (CMake's percentages)."""
import atexit
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
if os.environ.get("ROPE_PIP_BUILD_DIR"):
    WORK = pathlib.Path(os.environ["ROPE_PIP_BUILD_DIR"]).resolve()
    WORK.mkdir(parents=True, exist_ok=True)
else:  # out of the source tree, in the temporary directory pip's own work goes to (TMPDIR)
    WORK = pathlib.Path(tempfile.mkdtemp(prefix="rope-pip-"))
    atexit.register(shutil.rmtree, WORK, ignore_errors=True)


def say(text):
    """A progress line: pip shows the build's output under -v."""
    print(f"rope setup.py: {text}", flush=True)


def version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    return re.search(r"project\(rope VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        tree = os.environ.get("ROPE_CMAKE_BUILD_DIR")
        if tree:
            tree = pathlib.Path(tree).resolve()
            configure = ["cmake", "-S", str(ROOT), "-B", str(tree), "-DROPE_PYTHON=ON"]
        else:
            tree = WORK / "cmake"
            configure = ["cmake", "-S", str(ROOT), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release", "-DROPE_PYTHON=ON",
                         "-DBUILD_TESTING=OFF", "-DROPE_BUILD_BENCH=OFF", "-DROPE_UNITY_LIBRARY=ON",
                         "-DROPE_UNITY_CLI=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
        start = time.monotonic()
        say(f"configuring the CMake tree {tree}")
        subprocess.check_call(configure)
        jobs = str(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 2)
        say(f"compiling the library and the module (target rope_python, {jobs} jobs; minutes on 2 idle cores "
            "from nothing)")
        subprocess.check_call(["cmake", "--build", str(tree), "--target", "rope_python", "-j", jobs])
        say(f"built in {time.monotonic() - start:.0f} s")
        built = sorted((tree / "python" / "rope").glob("_rope*.so"))
        if not built:
            raise RuntimeError(f"the CMake build left no _rope*.so in {tree / 'python' / 'rope'}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    name="rope",
    version=version(),
    description="RoPE of real models: the float64 reference and the check of a kernel's output",
    packages=["rope"],
    package_dir={"rope": "apps/python/rope"},
    ext_modules=[Extension("rope._rope", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(WORK / "build")}, "egg_info": {"egg_base": str(WORK)}},
    python_requires=">=3.9",
    install_requires=["numpy"],
    zip_safe=False,
)
