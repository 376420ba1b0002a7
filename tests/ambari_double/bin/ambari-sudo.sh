#!/usr/bin/env bash
# Test double of the agent's ambari-sudo.sh (the agent puts the real one on PATH).
# Like the real one it drops leading VAR=value (exported) and -flag arguments, then runs the
# command. As root it runs it directly (as the real one does). As a non-root test user there is
# no sudo: "su <current user> -l -s /bin/bash -c CMD" runs CMD in a clean login-like environment,
# su to any other user fails with a clear message, anything else runs as the current user.
if [[ $# -eq 0 ]]; then
  echo 'usage: ambari-sudo.sh [sudo_arg1, sudo_arg2 ...] command [arg1, arg2 ...]' >&2
  exit 1
fi
ENV=()
while [[ $# -gt 0 ]]; do
  if [[ "$1" == *"="* && "$1" != -* ]]; then ENV+=("$1"); shift
  elif [[ "$1" == "-"* ]]; then shift
  else break; fi
done
if [[ ${#ENV[@]} -gt 0 ]]; then export "${ENV[@]}"; fi
if [[ "$EUID" -ne 0 && "$1" == "su" ]]; then
  target="$2"; shift 2
  me="$(id -un)"
  if [[ "$target" != "$me" ]]; then
    echo "ambari-sudo.sh (test double): cannot switch to user '$target' without root (running as '$me')" >&2
    exit 1
  fi
  cmd=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -c) cmd="$2"; shift 2 ;;
      -s) shift 2 ;;
      *) shift ;;
    esac
  done
  exec env -i HOME="$HOME" USER="$me" LOGNAME="$me" SHELL=/bin/bash /bin/bash -c "$cmd"
fi
exec "$@"
