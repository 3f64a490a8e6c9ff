"""Reading a Hugging Face config.json into a ModelConfig: the file (``config_file``), the fields of each
model type (``hf_fields``, ``hf_recent``) and the build (``hf_build``)."""
