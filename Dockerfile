# The one mpshare image: every component is `mpshare <subcommand>` (see charts/mpshare).
#
# Not built on the project's machines (they have no container engine); it is kept simple so that it
# builds anywhere Docker or Buildah is:
#   mvn -B -ntp -pl cli -am package -DskipTests      # makes cli/target/mpshare.jar
#   docker build -t ghcr.io/mpshare/mpshare:0.1.0 .
#
# Stage 1 makes a small Java runtime with jlink from the modules the jar needs (jdeps), plus the
# management modules that are only reached by reflection. The jlink line was checked against the
# shaded jar with JDK 25 (65 MB runtime; `mpshare webhook` served AdmissionReviews from it).
FROM eclipse-temurin:25-jdk AS runtime
COPY cli/target/mpshare.jar /tmp/mpshare.jar
RUN modules="$(jdeps --multi-release 25 --print-module-deps --ignore-missing-deps /tmp/mpshare.jar)" \
 && jlink --add-modules "${modules},java.logging,java.management,jdk.management,jdk.crypto.cryptoki,jdk.zipfs" \
          --strip-debug --no-man-pages --no-header-files --compress=zip-6 --output /opt/jre

# Stage 2: Ubuntu, as on the GPU nodes (the NVIDIA container runtime injects the driver, NVML and the
# MPS binaries at start; nothing NVIDIA is baked in). /bin/sh is kept for the readiness probes.
FROM ubuntu:24.04
COPY --from=runtime /opt/jre /opt/jre
COPY cli/target/mpshare.jar /opt/mpshare/mpshare.jar
ENV JAVA_HOME=/opt/jre \
    PATH=/opt/jre/bin:/usr/local/nvidia/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60 -XX:+ExitOnOutOfMemoryError"
# Node components run as root (the chart sets runAsUser: 0 there); the rest runs as this user.
USER 65532:65532
ENTRYPOINT ["java", "--enable-native-access=ALL-UNNAMED", "-jar", "/opt/mpshare/mpshare.jar"]
CMD ["--help"]
