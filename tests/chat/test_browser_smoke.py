import pytest

pytestmark = pytest.mark.browser


@pytest.mark.django_db(transaction=True)
def test_it_signs_in_and_shows_the_home_page(make_user, login):
    make_user("carol")
    page = login("carol", "pw-carol")
    assert "Hello, carol" in page.content()
