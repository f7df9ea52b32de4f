"""Record (and stop) calls, to show a command reads no data before its checks."""


def record_calls(monkeypatch, targets):
    """Replace each ``(owner, name)`` by a stub that records ``name`` and raises.

    Returns the list the names are appended to, in call order.
    """
    calls = []
    for owner, name in targets:

        def called(*args, _name=name, **kwargs):
            calls.append(_name)
            raise RuntimeError(f"{_name} was called")

        monkeypatch.setattr(owner, name, called)
    return calls
