"""The bundled sentence model's identity, which the PyTorch pipeline (``local``) and its ONNX export
(``onnx_model``) both check against: all-MiniLM-L6-v2, 384-dimensional."""

__all__ = ["DIMENSION", "MODEL_NAME"]

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
