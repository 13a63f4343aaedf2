# test/bench/product-hook.sh - aditus-queue beside the machine's ceilings.
#
# A PRODUCT_HOOK for the shared baseline harness (run-baseline.sh, which
# measures nginx static, a trivial libfcgi responder and the bare join
# increment on this machine): sourced by it, this file starts the real
# aqueue-fcgi pool on the harness's private MariaDB and adds two targets to
# its e2e section, measured interleaved with the baseline rows:
#
#   aqueue-status  GET status of an admitted number (no DB per request)
#                  vs the trivial libfcgi pool (web/nginx-fcgi-poolN)
#   aqueue-join    the join (one UPDATE per request; below the rate the
#                  answer carries a signed token)
#                  vs the bare increment responder (e2e/join-nginx-poolN)
#   aqueue-state-file  GET /queue/bench/state.json as shipped: nginx
#                  serves the file the pool's master rewrites (state-dir)
#                  vs nginx static (e2e/nginx-static); target >= 0.5 x
#   aqueue-state-app   the same document answered by the app (the
#                  fallback when the file is missing) vs nginx static
#
# The pool runs POOL + 1 workers: it keeps one worker out of database
# writes at all times (writers.c, so that status answers while joins are
# stuck on a locked row), so POOL + 1 workers give POOL concurrent
# writers, as many as the bare increment's pool of POOL has.  With
# innodb_flush_log_at_trx_commit = 1 the join is bound by how many
# commits share one fsync, i.e. by that number.
#
# wrk sends GET only, so the join server block rewrites the FastCGI
# REQUEST_METHOD to POST and REQUEST_URI to the join endpoint.  Run it
# with test/bench/run.

AQ_BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)

# aq_params URI QUERY: the harness's FastCGI params with method, URI and
# query fixed, for GET-only load generators.
aq_params() {
	fastcgi_params | sed -e "s|REQUEST_METHOD \$request_method|REQUEST_METHOD $1|" \
	    -e "s|REQUEST_URI \$request_uri|REQUEST_URI $2|" \
	    -e "s|QUERY_STRING \$query_string|QUERY_STRING \"$3\"|"
}

product_e2e_setup() {
	local d="$W/aqueue" conf
	mkdir -p "$d" "$d/state"
	conf="$d/aqueue.conf"
	od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$d/master.key"
	chmod 600 "$d/master.key"
	cat >"$conf" <<CONF
listen = unix:$W/run/aqueue.sock
listen-mode = 0666
workers = $((POOL + 1))
db-socket = $DB_SOCK
db-user = bench
db-password = bench
db-name = wr
master-key-file = $d/master.key
templates-dir = $AQ_BENCH_ROOT/templates
migrations-dir = $AQ_BENCH_ROOT/migrations
state-dir = $d/state
CONF
	chmod 600 "$conf"
	"$AQ_BENCH_ROOT/fcgi-app/aqueuectl" -f "$conf" migrate >&2 ||
	    die "aqueuectl migrate failed"
	"$AQ_BENCH_ROOT/fcgi-app/aqueuectl" -f "$conf" exists bench ||
	    "$AQ_BENCH_ROOT/fcgi-app/aqueuectl" -f "$conf" create bench \
	    --name Bench --target https://shop.example/ --domains shop.example \
	    --rate 1000000 >/dev/null || die "aqueuectl create failed"
	# Number 1, admitted, for the status target.
	"$AQ_BENCH_ROOT/fcgi-app/aqueuectl" -f "$conf" show bench >/dev/null
	start_bg e2e aqueue-fcgi "$AQ_BENCH_ROOT/fcgi-app/aqueue-fcgi" -f "$conf"
	local i
	for i in $(seq 50); do
		[ -S "$W/run/aqueue.sock" ] && break
		sleep 0.1
	done
}

product_e2e_nginx_blocks() {
	cat <<BLOCK
    server {
        listen 127.0.0.1:$P_PRODUCT;
        location / {
$(aq_params GET /queue/bench/status number=1)
            fastcgi_pass unix:$W/run/aqueue.sock;
        }
    }
    server {
        listen 127.0.0.1:$((P_PRODUCT + 1));
        location / {
$(aq_params POST /queue/bench/join "")
            fastcgi_pass unix:$W/run/aqueue.sock;
        }
    }
    server {
        listen 127.0.0.1:$((P_PRODUCT + 2));
        # The poll document as shipped: the master's file, else the app.
        location ~ "^/queue/([a-z0-9][a-z0-9-]{0,62})/state\\.json\$" {
            root $W/aqueue/state;
            types { }
            default_type application/json;
            add_header Cache-Control "public, max-age=1" always;
            add_header Vary Origin always;
            try_files /\$1.json @app;
        }
        location @app {
$(aq_params GET /queue/bench/state.json "")
            fastcgi_pass unix:$W/run/aqueue.sock;
        }
    }
    server {
        listen 127.0.0.1:$((P_PRODUCT + 3));
        location / {
$(aq_params GET /queue/bench/state.json "")
            fastcgi_pass unix:$W/run/aqueue.sock;
        }
    }
BLOCK
}

product_e2e_targets() {
	# The status target needs number 1 to exist: join once first.
	curl -s -o /dev/null "http://127.0.0.1:$((P_PRODUCT + 1))/" || true
	echo "aqueue-status|http://127.0.0.1:$P_PRODUCT/|web/nginx-fcgi-pool$POOL"
	echo "aqueue-join|http://127.0.0.1:$((P_PRODUCT + 1))/|e2e/join-nginx-pool$POOL@flush"
	# The poll document: nginx serving the master's file (no FastCGI),
	# and the app's own answer of the same path, both vs nginx static.
	local i
	for i in $(seq 50); do
		[ -s "$W/aqueue/state/bench.json" ] && break
		sleep 0.1
	done
	echo "aqueue-state-file|http://127.0.0.1:$((P_PRODUCT + 2))/queue/bench/state.json|e2e/nginx-static"
	echo "aqueue-state-app|http://127.0.0.1:$((P_PRODUCT + 3))/|e2e/nginx-static"
}
