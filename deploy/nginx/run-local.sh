#!/usr/bin/env bash
# Runs nginx in the foreground with deploy/nginx/lathe.conf on a built site, on loopback:
# what the tests use (the "nginx" Playwright project), and a way to try the configuration.
#   deploy/nginx/run-local.sh [PORT] [DIST]    (defaults: 4175, web/dist)
# PORT 0: a port the system picks. The socket is bound and listening before nginx starts
# (nginx takes it over through its NGINX variable, as on a binary upgrade), so the line
# "nginx on http://127.0.0.1:PORT" says both where and that it is ready: the tests read it
# rather than poll a port, and no port is chosen for nginx that another process can take.
# With LATHE_UPSTREAM=HOST:PORT, the waitlist's endpoint is passed to the lathe-site there
# (deploy/nginx/lathe-waitlist.conf, included as lathe.conf's commented line says).
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${1:-4175}
dist=$(cd "${2:-web/dist}" && pwd)
nginx=$(command -v nginx || echo /usr/sbin/nginx)
modules=/usr/lib/nginx/modules
[ -x "$nginx" ] || { echo "run-local: nginx is not installed (make setup installs it)" >&2; exit 1; }

# The folder goes when nginx stops: the Python below stays nginx's parent to remove it.
work=$(mktemp -d -t lathe-nginx.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/snippets"
# LATHE_SITE: the lathe-site binary that writes the headers (the release build unless set).
"${LATHE_SITE:-target/release/lathe-site}" nginx-headers --dist "$dist" >"$work/snippets/lathe-headers.conf"
# The configuration as committed, with only its address and folders put in.
include_waitlist=()
if [ -n "${LATHE_UPSTREAM:-}" ]; then
  sed -e "s|proxy_pass http://127.0.0.1:8080;|proxy_pass http://$LATHE_UPSTREAM;|" \
    deploy/nginx/lathe-waitlist.conf >"$work/snippets/lathe-waitlist.conf"
  include_waitlist=(-e "s|# include snippets/lathe-waitlist.conf;|include snippets/lathe-waitlist.conf;|")
fi
sed "${include_waitlist[@]}" \
  -e "s|listen 80;|listen 127.0.0.1:@PORT@;|" \
  -e "s|root /var/www/lathe;|root $dist;|" \
  -e "s|include snippets/|include $work/snippets/|" \
  deploy/nginx/lathe.conf >"$work/lathe.conf"
cat >"$work/nginx.conf" <<CONF
$( [ "$(id -u)" -eq 0 ] && echo "user root;" )
load_module $modules/ngx_http_brotli_static_module.so;
worker_processes 2;
daemon off;
pid $work/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path $work/body;
  proxy_temp_path $work/proxy;
  fastcgi_temp_path $work/fastcgi;
  uwsgi_temp_path $work/uwsgi;
  scgi_temp_path $work/scgi;
  include $work/lathe.conf;
}
CONF
# The listening socket first (Debian's Python: it is there wherever nginx is), then nginx
# with it: its configuration checked, then run. SIGTERM or SIGINT stops nginx (passed on,
# should only this process get it), and the folder is removed once nginx has exited.
exec /usr/bin/python3 - "$port" "$work" "$nginx" <<'PY'
import os, shutil, signal, socket, subprocess, sys

port, work, nginx = int(sys.argv[1]), sys.argv[2], sys.argv[3]
listener = socket.create_server(("127.0.0.1", port), backlog=511)
port = listener.getsockname()[1]
conf = os.path.join(work, "lathe.conf")
with open(conf) as f:
    text = f.read().replace("@PORT@", str(port))
with open(conf, "w") as f:
    f.write(text)
os.set_inheritable(listener.fileno(), True)
os.environ["NGINX"] = f"{listener.fileno()};"
command = [nginx, "-c", os.path.join(work, "nginx.conf"), "-p", work]
subprocess.run(command + ["-t", "-q"], check=True, pass_fds=[listener.fileno()])
nginx_process = subprocess.Popen(command, pass_fds=[listener.fileno()])
listener.close()


def stop(signum, _frame):
    nginx_process.send_signal(signum)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
print(f"nginx on http://127.0.0.1:{port}", flush=True)
code = nginx_process.wait()
shutil.rmtree(work, ignore_errors=True)
sys.exit(code)
PY
