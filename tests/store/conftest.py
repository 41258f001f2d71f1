from tests.integration.conftest import stack  # noqa: F401 - the real app under uvicorn
from tests.integration.test_kill9 import free_port  # noqa: F401 - a free loopback port
