import pytest

pytestmark = pytest.mark.browser


@pytest.mark.django_db(transaction=True)
def test_it_signs_in_and_shows_the_chat_page(make_user, login):
    make_user("carol")
    page = login("carol", "pw-carol")
    assert page.locator("#composer textarea").is_visible()
    assert "carol" in page.locator(".topbar").inner_text()
