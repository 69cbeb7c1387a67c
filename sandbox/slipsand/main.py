"""Command line of slipway-sandbox: parse flags, start listeners, write sandbox.json, wait.

The contract the `slipway` launcher relies on:
  slipway-sandbox --state-dir DIR [--host 127.0.0.1] [--port 0] [--speed N]
                  [--region us-west-2] [--models DIR]
Runs in the foreground, loopback only, writes DIR/sandbox.json atomically
when ready, exits 0 on SIGTERM/SIGINT with every listener closed.
"""
import argparse
import ipaddress
import os
import signal
import sys
import threading

from .gateway import AwsHandler
from .k8s.manager import validation_notes
from .server import Server
from .world import World

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT_ROOT = os.path.dirname(os.path.dirname(HERE))


def default_models_dir():
    for cand in (os.path.join(PROJECT_ROOT, "..", "shared", "testdata", "aws-models"),
                 os.path.join(PROJECT_ROOT, "shared", "testdata", "aws-models")):
        if os.path.isdir(cand):
            return os.path.abspath(cand)
    return None


def parse_args(argv):
    p = argparse.ArgumentParser(prog="slipway-sandbox",
                                description="Local AWS + Kubernetes backend for Slipway.")
    p.add_argument("--state-dir", required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--speed", type=float, default=1.0)
    p.add_argument("--region", default="us-west-2")
    p.add_argument("--models", default=None)
    p.add_argument("--seed", type=int, default=None, help="seed for fault randomness")
    p.add_argument("--throttle-rate", type=float, default=None)
    p.add_argument("--error-rate", type=float, default=None)
    p.add_argument("--drop-rate", type=float, default=None)
    p.add_argument("--latency-ms", type=int, default=None)
    p.add_argument("--insufficient-capacity", default=None,
                   help="comma-separated instance types HyperPod cannot get")
    args = p.parse_args(argv)
    try:
        ip = ipaddress.ip_address(args.host if args.host != "localhost" else "127.0.0.1")
    except ValueError:
        p.error("--host must be a loopback IP address")
    if not ip.is_loopback:
        p.error("--host %s is not a loopback address; the sandbox only listens on loopback"
                % args.host)
    if args.host == "localhost":
        args.host = "127.0.0.1"
    if args.speed <= 0:
        p.error("--speed must be positive")
    if not (0 <= args.port <= 65535):
        p.error("--port out of range")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    models_dir = args.models or default_models_dir()
    if models_dir and not os.path.isdir(models_dir):
        sys.stderr.write("slipway-sandbox: --models %s is not a directory\n" % models_dir)
        return 2
    world = World(args.state_dir, region=args.region, speed=args.speed,
                  models_dir=os.path.abspath(models_dir) if models_dir else None,
                  host=args.host, seed=args.seed)
    spec = {}
    for flag, key in (("throttle_rate", "throttle"), ("error_rate", "error_5xx"),
                      ("drop_rate", "drop"), ("latency_ms", "latency_ms")):
        val = getattr(args, flag)
        if val is not None:
            spec[key] = {"*": val}
    if args.insufficient_capacity:
        spec["insufficient_capacity"] = [t.strip() for t in args.insufficient_capacity.split(",")
                                         if t.strip()]
    if spec:
        try:
            with world.lock:
                world.faults.update(spec)
        except ValueError as e:
            sys.stderr.write("slipway-sandbox: %s\n" % e)
            return 2
    try:
        server = Server((args.host, args.port), AwsHandler, world)
    except OSError as e:
        sys.stderr.write("slipway-sandbox: cannot listen on %s:%d: %s\n" % (args.host, args.port, e))
        return 1
    world.aws_port = server.server_address[1]
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              name="aws-listener", daemon=True)
    thread.start()
    with world.lock:
        world.advance_locked()
    for note in validation_notes():
        sys.stderr.write("slipway-sandbox: %s\n" % note)
    world.kube.start_all()
    world.start_ticker()
    world.write_sandbox_json(force=True)
    while not stop.wait(0.5):
        pass
    server.shutdown()
    server.server_close()
    world.shutdown()
    return 0
