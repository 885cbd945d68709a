# ONNX protobuf reader (Debian libonnx-dev libprotobuf-dev): targets onnx, onnx_proto.
find_package(Protobuf REQUIRED)
find_package(ONNX CONFIG REQUIRED)
