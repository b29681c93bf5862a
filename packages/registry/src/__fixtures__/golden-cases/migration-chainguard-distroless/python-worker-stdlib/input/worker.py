import json
import os
import time


def main() -> None:
    spool = os.environ.get("SPOOL_DIR", "/spool")
    while True:
        for name in sorted(os.listdir(spool)) if os.path.isdir(spool) else []:
            with open(os.path.join(spool, name)) as handle:
                print(json.dumps({"job": name, "bytes": len(handle.read())}), flush=True)
        time.sleep(5)


if __name__ == "__main__":
    main()
