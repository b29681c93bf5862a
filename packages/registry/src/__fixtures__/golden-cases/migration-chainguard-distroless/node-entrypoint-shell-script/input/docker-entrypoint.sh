#!/bin/sh
set -eu
# Render the runtime config from the environment, then hand over to the CMD.
sed -e "s|__API_URL__|${API_URL:-http://localhost:9000}|" /app/config.template.json > /tmp/config.json
exec "$@"
