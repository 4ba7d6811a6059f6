FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY yahtzee ./yahtzee
COPY games ./games
COPY bots ./bots
RUN pip install .
COPY manage.py ./
COPY templates ./templates
COPY static ./static
RUN SECRET_KEY=build-only DATA_DIR=/tmp/build python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "yahtzee.asgi:application"]
