"""``python -m semreport.http --url STORAGE_URL --host 127.0.0.1 --port 8000``."""

from semreport.http._serve import main

raise SystemExit(main())
