"""Job functions for the RQ test (tests/integration/clients/test_client_libraries.py): RQ imports them by name in its worker."""


def add(a, b):
    return a + b


def fail():
    raise ValueError("boom")
