from django.urls import path

from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("rooms/new", views.room_create, name="room_create"),
    path("rooms/find", views.room_find, name="room_find"),
    path("r/<str:code>/", views.room, name="room"),
    path("r/<str:code>/join", views.room_join, name="room_join"),
    path("r/<str:code>/state.json", views.room_state, name="room_state"),
    path("r/<str:code>/log.json", views.room_log, name="room_log"),
    path("r/<str:code>/<str:action>", views.room_action, name="room_action"),
]
