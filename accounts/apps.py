from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts, history and ratings"

    def ready(self) -> None:
        from accounts import receivers  # noqa: F401  (connects the signal receivers)
