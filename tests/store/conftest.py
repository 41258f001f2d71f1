from tests.integration.conftest import stack  # noqa: F401 - the real app under uvicorn
