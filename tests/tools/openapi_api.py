"""A small REST API (FastAPI) for tests/tools/test_openapi_toolset.py, served by uvicorn.

``python -m uvicorn tests.tools.openapi_api:app --port PORT``; its document is at
``/openapi.json``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI, Header, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel

app = FastAPI(title="pets")


class Pet(BaseModel):
    name: str
    kind: str = "cat"


PETS: dict[int, Pet] = {1: Pet(name="Tom", kind="cat"), 2: Pet(name="Rex", kind="dog")}


@app.get("/pets", operation_id="listPets", summary="List pets.")
def list_pets(
    limit: int = 10, kinds: Annotated[list[str] | None, Query()] = None
) -> list[dict[str, object]]:
    found = [{"id": i, **p.model_dump()} for i, p in PETS.items() if not kinds or p.kind in kinds]
    return found[:limit]


@app.get("/pets/{pet_id}", operation_id="getPet", summary="One pet.")
def get_pet(pet_id: int) -> dict[str, object]:
    if pet_id not in PETS:
        raise HTTPException(404, f"no pet {pet_id}")
    return {"id": pet_id, **PETS[pet_id].model_dump()}


@app.post("/pets", operation_id="createPet", status_code=201, summary="Add a pet.")
def create_pet(pet: Pet) -> dict[str, object]:
    number = max(PETS) + 1
    PETS[number] = pet
    return {"id": number, **pet.model_dump()}


@app.get("/secret", operation_id="getSecret")
def secret(x_api_key: Annotated[str | None, Header()] = None) -> dict[str, str]:
    if x_api_key != "k1":
        raise HTTPException(401, "bad key")
    return {"secret": "42"}


@app.get("/qsecret", operation_id="getQuerySecret")
def query_secret(request: Request) -> dict[str, str]:
    if request.query_params.get("key") != "k2":
        raise HTTPException(401, "bad key")
    return {"secret": "43"}


@app.get("/trace", operation_id="echoTrace")
def trace(x_trace: Annotated[str | None, Header()] = None) -> dict[str, str | None]:
    return {"trace": x_trace}


@app.get("/big", operation_id="bigText", response_class=PlainTextResponse)
def big() -> str:
    return "x" * 150_000
