# adk-runtime with every extra: `docker build -t adk-runtime .`, used by the compose profiles.
FROM python:3.11-slim
WORKDIR /src
COPY pyproject.toml README.md constraints.txt ./
COPY adk_runtime ./adk_runtime
COPY migrations ./migrations
RUN pip install --no-cache-dir -c constraints.txt '.[all]'
# The server binds 127.0.0.1 unless told otherwise; in a container it must listen on all.
ENTRYPOINT ["adk-runtime"]
CMD ["serve", "--agent", "adk_runtime.demo:root_agent", "--host", "0.0.0.0", "--port", "8000"]
