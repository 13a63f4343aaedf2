#!/bin/sh
# deploy/apache-shared/aqueue.fcgi - what mod_fcgid runs in the web
# folder: the FastCGI program of the installation in ~/aqueue (the
# documented "./configure --prefix=$HOME/aqueue"), with its
# configuration ~/aqueue/etc/aqueue.conf.  mod_fcgid passes the listening
# socket on fd 0.  suEXEC runs it as your account with HOME unset, so
# the home folder comes from the account's entry.  Keep it mode 0755 and
# yours ("aqueuectl init --web-dir" puts it in place).
home=$(getent passwd "$(id -u)" | cut -d: -f6)
exec "$home/aqueue/bin/aqueue-fcgi" -f "$home/aqueue/etc/aqueue.conf"
