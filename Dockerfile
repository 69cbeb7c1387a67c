# Dockerfile: the single Slipway management container (Debian 12 slim).
# nginx, the FastCGI workers, the poller and the launcher, run as the
# unprivileged user "slipway"; state in the volume /var/lib/slipway.
#
#   docker build -t slipway .
#   docker run -d --network host -v slipway-state:/var/lib/slipway slipway
#
# The filesystem it ships is exactly `make install DESTDIR=/staging`
# (t/15-install.t builds that layout and checks what this file names).
# Both stages start from debian:12-slim pinned by digest (t/17-image.t);
# to move to a newer one, replace the digest in both FROM lines with the
# one `docker buildx imagetools inspect debian:12-slim` shows.  The
# build leaves out the test-only fault hooks (lib/fault.h).

FROM debian:12-slim@sha256:88200866dfff7ea7f5cbcb6ec7c8a701889efe6fe859fe64d6990e4b07ea4171 AS build
RUN apt-get update -q && apt-get install -y -q --no-install-recommends \
        gcc make autoconf automake libtool pkg-config python3 nginx \
        libfcgi-dev libjson-c-dev libcurl4-openssl-dev libssl-dev \
        libsqlite3-dev libpq-dev libxml2-dev libwebsockets-dev libyaml-dev \
        ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN autoreconf -fi && ./configure -q --prefix=/usr --sysconfdir=/etc \
        --localstatedir=/var --enable-werror --disable-fault-injection \
    && make -s -j"$(nproc)" && make -s install DESTDIR=/staging

FROM debian:12-slim@sha256:88200866dfff7ea7f5cbcb6ec7c8a701889efe6fe859fe64d6990e4b07ea4171
RUN apt-get update -q && apt-get install -y -q --no-install-recommends \
        nginx-light libfcgi0ldbl libjson-c5 libcurl4 libssl3 libsqlite3-0 libpq5 \
        libxml2 libwebsockets17 libyaml-0-2 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home-dir /var/lib/slipway --shell /usr/sbin/nologin \
        slipway \
    && install -d -o slipway -g slipway -m 0700 /var/lib/slipway
COPY --from=build /staging/ /
ENV SLIPWAY_STATE_DIR=/var/lib/slipway \
    SLIPWAY_CONF=/etc/slipway/slipway.conf
VOLUME ["/var/lib/slipway"]
USER slipway
EXPOSE 3099
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD curl -fsS http://127.0.0.1:3099/api/v1/health || exit 1
ENTRYPOINT ["/usr/bin/slipway", "start", "--foreground", \
            "--state-dir", "/var/lib/slipway"]
