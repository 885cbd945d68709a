# -*- Python -*-
# lit configuration for fusec's FileCheck tests.
import os

import lit.formats

config.name = "fusec"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".json", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fusec_binary_dir, "test", "lit")

# fusec tools first, then LLVM's FileCheck/not/count.
config.environment["PATH"] = os.pathsep.join(
    [config.fusec_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
)
config.substitutions.append(("%models", config.fusec_models_dir))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%examples", os.path.join(config.test_source_root, "..", "..", "examples")))
# The CPU-hosted CUDA driver double, which also carries the cuBLASLt double
# (test/unit/runtime/HostCudaDriver.cpp, HostCublasLt.cpp).
config.substitutions.append(
    ("%host-cuda", os.path.join(config.fusec_binary_dir, "lib", "libfusec-host-cuda-driver.so"))
)
config.substitutions.append(
    ("%plugin", os.path.join(config.fusec_binary_dir, "lib", "libfusec_example_plugin.so"))
)
