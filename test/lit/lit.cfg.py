# lit configuration for Synergy: substitutions and features.
import os
import shutil
import lit.formats

config.name = "Synergy"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp", ".wat", ".test", ".v"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.synergy_obj_root, "test", "lit")

path = os.pathsep.join([config.synergy_bin_dir, config.llvm_bin_dir, config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
# One AOT cache for the whole run, inside the build tree, so a clean checkout
# starts cold and parallel tests share compiled granules.
config.environment["SYNERGY_CACHE_DIR"] = os.path.join(config.synergy_obj_root, "test", "aot-cache")
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%synergy-cc", os.path.join(config.synergy_bin_dir, "synergy-cc")))
config.substitutions.append(("%synergy-c\\+\\+", os.path.join(config.synergy_bin_dir, "synergy-c++")))
config.substitutions.append(("%synergy-run", os.path.join(config.synergy_bin_dir, "synergy-run")))
config.substitutions.append(("%synergy-opt", os.path.join(config.synergy_bin_dir, "synergy-opt")))
config.substitutions.append(("%wasm-dis", config.wasm_dis))
# Native peers for differential tests: the same source built for the host.
config.substitutions.append(("%host-clang\\+\\+", config.clang.replace("clang-19", "clang++-19")))
config.substitutions.append(("%host-clang", config.clang))
config.substitutions.append(("%cmake", config.cmake))
config.substitutions.append(("%src_root", config.synergy_src_root))
config.substitutions.append(("%obj_root", config.synergy_obj_root))

for tool, feature in ((config.iverilog, "iverilog"), (config.yosys, "yosys")):
    if tool and os.path.exists(tool):
        config.available_features.add(feature)
# Valgrind is an optional host tool, found on PATH like the LLVM tools.
if shutil.which("valgrind", path=path) and shutil.which("callgrind_annotate", path=path):
    config.available_features.add("valgrind")
