"""A tenant's applied settings (a replay's "Apply"): read them, set one, put the configured one back."""

from __future__ import annotations

from fastapi import APIRouter

from phronesis.api.bodies import SettingPage
from phronesis.api.deps import EngineDep, Limit, Offset, TenantDep
from phronesis.pages import page_of
from phronesis.tenant_settings import AppliedSetting, ApplyIn, SettingName

router = APIRouter(prefix="/v1/settings", tags=["settings"])


@router.get("", summary="The tenant's tunable settings: the value decisions use, the configured one, the applied one")
async def list_settings(engine: EngineDep, tenant: TenantDep, limit: Limit = 100, offset: Offset = 0) -> SettingPage:
    return page_of(await engine.tenant_settings.list(tenant), limit=limit, offset=offset)


@router.get("/{name}", summary="One tunable setting of the tenant: the value decisions use, configured and applied")
async def get_setting(name: SettingName, engine: EngineDep, tenant: TenantDep) -> AppliedSetting:
    """The same entry as ``GET /v1/settings`` lists for this setting."""
    return next(item for item in await engine.tenant_settings.list(tenant) if item.name == name)


@router.put(
    "/{name}",
    summary="Apply a value for this tenant (null: back to the configured one), recorded as a decision of its own",
)
async def apply_setting(name: SettingName, body: ApplyIn, engine: EngineDep, tenant: TenantDep) -> AppliedSetting:
    """Holds from the next decision on, in every process on the database."""
    return await engine.tenant_settings.apply(tenant, name, body)
