"""``python -m semreport.cli``: the same as the ``semreport`` command."""

from semreport.cli import main

if __name__ == "__main__":  # pragma: no cover - run as a process by the tests
    main()
