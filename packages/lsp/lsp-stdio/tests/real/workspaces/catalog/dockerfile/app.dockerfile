FROM debian:bookworm AS größe
ARG VARIANT=bookworm
RUN echo "📐 ${VARIANT}"
