"""Field schemas generated from Kubernetes' Go types (see tools/gen_schemas.py)."""
