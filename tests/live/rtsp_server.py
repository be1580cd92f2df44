#!/usr/bin/python3
"""A real RTSP server for framepipe's live tests: GStreamer's rtsp-server (gst-rtsp-server
through python3-gi) sending an H.264 test pattern in real time.

  rtsp_server.py --port 8554 [--path /stream] [--size 320x240] [--fps 25]
                 [--frames N] [--user U --password P] [--record FILE]

--frames N: each client gets N frames, then the stream ends (EOS): a live source that stops.
--user/--password: RTSP basic authentication; other clients get 401.
--record FILE: the server takes a published stream instead (ANNOUNCE + RECORD, as a client
such as `ffmpeg -f rtsp` or framepipe's rtsp:// output sends it) and writes its H.264 to FILE
as an Annex B elementary stream, each access unit as it arrives (no muxer holding the last).
Prints "listening on PORT" on stdout once the socket is bound (the test fixture waits for it)
and runs until killed. Exits 3 when the port cannot be bound.
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", default="/stream")
    parser.add_argument("--size", default="320x240")
    parser.add_argument("--fps", type=int, default=25)
    parser.add_argument("--frames", type=int, default=-1, help="frames per client, then EOS (-1: endless)")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--record")
    return parser.parse_args()


def launch_line(args):
    width, height = (int(v) for v in args.size.split("x"))
    # is-live: frames are produced at the frame rate, like a camera. zerolatency: no
    # B-frames and no lookahead, so every frame leaves the encoder at once. key-int-max
    # keeps keyframes frequent: a client that joins late decodes within a second.
    # threads=1: one slice per frame; with zerolatency's sliced threads FFmpeg's RTP
    # depacketizer sometimes splits a keyframe into two frames of the same pts, which would
    # make frame counts in the tests vary from run to run.
    return (
        f"( videotestsrc is-live=true num-buffers={args.frames} pattern=ball "
        f"! video/x-raw,width={width},height={height},framerate={args.fps}/1,format=I420 "
        f"! x264enc tune=zerolatency speed-preset=ultrafast threads=1 key-int-max={args.fps} "
        f"! rtph264pay name=pay0 pt=96 config-interval=-1 )"
    )


def record_line(path):
    # depay0: the name gst-rtsp-server gives the stream the client announces.
    return (
        f"( rtph264depay name=depay0 ! h264parse config-interval=-1 "
        f"! video/x-h264,stream-format=byte-stream,alignment=au ! filesink location={path} )"
    )


def add_basic_auth(server, factory, user, password):
    auth = GstRtspServer.RTSPAuth()
    token = GstRtspServer.RTSPToken()
    token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "user")
    auth.add_basic(GstRtspServer.RTSPAuth.make_basic(user, password), token)
    server.set_auth(auth)
    # add_role() is variadic in C and not callable from Python: the role as a structure.
    permissions = GstRtspServer.RTSPPermissions()
    permissions.add_role_from_structure(
        Gst.Structure.new_from_string(
            "user, media.factory.access=(boolean)true, media.factory.construct=(boolean)true"
        )
    )
    factory.set_permissions(permissions)


def main():
    args = parse_args()
    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))
    factory = GstRtspServer.RTSPMediaFactory()
    if args.record is not None:
        factory.set_transport_mode(GstRtspServer.RTSPTransportMode.RECORD)
        # No jitter buffer delay, and an end of stream sent through the pipeline at the
        # client's TEARDOWN before it stops: every frame received reaches the file, even when
        # the machine is busy and the pipeline runs behind the socket.
        factory.set_latency(0)
        factory.set_eos_shutdown(True)
        factory.set_launch(record_line(args.record))
    else:
        factory.set_launch(launch_line(args))
    factory.set_shared(False)  # every client gets its own pipeline, from frame 0
    if args.user is not None:
        add_basic_auth(server, factory, args.user, args.password or "")
    server.get_mount_points().add_factory(args.path, factory)
    try:
        server.attach(None)
    except GLib.Error as error:
        print(f"cannot listen on port {args.port}: {error.message}", file=sys.stderr, flush=True)
        return 3
    print(f"listening on {args.port}", flush=True)
    GLib.MainLoop().run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
