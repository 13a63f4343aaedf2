#!/bin/sh
# deploy/apache-shared/aqueue.fcgi - what mod_fcgid runs: the FastCGI
# program with its configuration.  mod_fcgid passes the listening socket
# on fd 0 (the configuration's "listen" is empty) and keeps one request
# per process at a time, so each of its processes is a master with one
# worker.  Adjust the two paths; keep the file mode 0755 and owned by
# the hosting account (suEXEC refuses anything else).
exec /home/shopuser/aqueue/bin/aqueue-fcgi -f /home/shopuser/aqueue/aqueue.conf
