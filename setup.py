"""The Python module rope (docs/python.md), built by the project's CMake: `pip install --no-build-isolation .`
in a virtual environment. The extension rope._rope is the CMake target rope_python; the version is the one of
project(rope VERSION ...) in CMakeLists.txt, the command line's. ROPE_CMAKE_BUILD_DIR names a configured build
tree to build the module in (nothing it already has is compiled again); else a Release tree of the library and
the module alone in build/pip/cmake."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
(ROOT / "build" / "pip").mkdir(parents=True, exist_ok=True)  # egg_base below


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
            tree = ROOT / "build" / "pip" / "cmake"
            configure = ["cmake", "-S", str(ROOT), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release", "-DROPE_PYTHON=ON",
                         "-DBUILD_TESTING=OFF", "-DROPE_BUILD_BENCH=OFF", f"-DPython3_EXECUTABLE={sys.executable}"]
        subprocess.check_call(configure)
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", str(tree), "--target", "rope_python", "-j", jobs])
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
    options={"build": {"build_base": "build/pip"}, "egg_info": {"egg_base": "build/pip"}},
    python_requires=">=3.9",
    install_requires=["numpy"],
    zip_safe=False,
)
