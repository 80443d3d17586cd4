"""Training of the shipped models. Needs the ``train`` extras (torch, transformers, onnx); nothing
here is imported by ``import guardrail``."""
