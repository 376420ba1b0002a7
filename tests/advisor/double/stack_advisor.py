"""Test double of Ambari's stacks/stack_advisor.py (DefaultStackAdvisor), for CI without Ambari.

Only what the MirrorMaker 2 advisor and these tests use, with the semantics of
ambari-server/src/main/resources/stacks/stack_advisor.py in release-2.7.8 and trunk (read, not
copied): how service advisors are found and instantiated, the recommend / validate flows, config
groups, the changed-configurations rule of putProperty and the validation item shapes. The same
tests run against the real file when MM2_AMBARI_SRC points at an Ambari checkout.
"""
import logging
import os
import re

from source_loader import load_source as _load_source  # tests/advisor is on sys.path


class DefaultStackAdvisor(object):

    def __init__(self):
        self.services = None
        self.logger = logging.getLogger("DefaultStackAdvisor")
        self.serviceAdvisorsDict = {}
        self.allRequestedProperties = None
        self.loaded_service_advisors = False

    # --- service advisors: file at StackServices/advisor_path, class picked by name pattern -----

    def getServiceAdvisor(self, key):
        if not self.loaded_service_advisors:
            self.loadServiceAdvisors()
        return self.serviceAdvisorsDict.get(key)

    def loadServiceAdvisors(self):
        self.loaded_service_advisors = True
        if self.services is None or "services" not in self.services:
            return
        for service in self.services["services"]:
            name = service["StackServices"]["service_name"]
            self.serviceAdvisorsDict[name] = self.instantiateServiceAdvisor(service)
            for component in service["components"]:
                self.serviceAdvisorsDict[self.getComponentName(component)] = self.serviceAdvisorsDict[name]

    def instantiateServiceAdvisor(self, service):
        info = service["StackServices"]
        service_name = info["service_name"]
        class_name = info.get("advisor_name")
        path = info.get("advisor_path")
        # The first attribute in dir() order whose name matches <SERVICE>.*?ServiceAdvisor wins over
        # the Java-computed advisor_name.
        pattern = re.compile("%s.*?ServiceAdvisor" % service_name, re.IGNORECASE)
        if path is None or not os.path.exists(path) or class_name is None:
            return None
        try:
            module = _load_source("service_advisor_impl", path)
            best = class_name
            for attribute in dir(module):
                if not attribute.startswith("__") and pattern.match(attribute):
                    best = attribute
                    break
            if hasattr(module, best):
                return getattr(module, best)()
            self.logger.error("Failed to load ServiceAdvisor for %s: no class %s", service_name, best)
        except Exception:
            self.logger.exception("Failed to load or create ServiceAdvisor implementation for service %s",
                                  service_name)
        return None

    # --- flows --------------------------------------------------------------------------------

    def _advisors(self, services):
        result = []
        for service in services["services"]:
            advisor = self.getServiceAdvisor(service["StackServices"]["service_name"])
            if advisor is not None:
                result.append(advisor)
        return result

    def _empty_recommendations(self, services, hosts):
        return {
            "Versions": {"stack_name": services["Versions"]["stack_name"],
                         "stack_version": services["Versions"]["stack_version"]},
            "hosts": [h["Hosts"]["host_name"] for h in hosts["items"]],
            "services": [s["StackServices"]["service_name"] for s in services["services"]],
            "recommendations": {"blueprint": {"configurations": {}, "host_groups": []},
                                "blueprint_cluster_binding": {"host_groups": []}},
        }

    def recommendConfigurations(self, services, hosts, method="getServiceConfigurationRecommendations"):
        self.services = services
        recommendations = self._empty_recommendations(services, hosts)
        if "config-groups" in services:
            self._recommendConfigGroups(recommendations, services, hosts, method)
        else:
            configurations = recommendations["recommendations"]["blueprint"]["configurations"]
            for advisor in self._advisors(services):
                getattr(advisor, method)(configurations, {}, services, hosts)
        return recommendations

    def recommendConfigurationsForKerberos(self, services, hosts):
        return self.recommendConfigurations(services, hosts, "getServiceConfigurationRecommendationsForKerberos")

    def _recommendConfigGroups(self, recommendations, services, hosts, method):
        recommendations["recommendations"]["config-groups"] = []
        for group in services["config-groups"]:
            # The group's values override the default group's; only the group's hosts are passed.
            cg_services = services.copy()
            for config_type, site in group["configurations"].items():
                if config_type in cg_services["configurations"]:
                    cg_services["configurations"][config_type]["properties"].update(site["properties"])
                else:
                    cg_services["configurations"][config_type] = site
            cg_hosts = {"items": [h for h in hosts["items"] if h["Hosts"]["host_name"] in group["hosts"]]}
            configurations = {}
            for advisor in self._advisors(services):
                getattr(advisor, method)(configurations, {}, cg_services, cg_hosts)
            result = {"configurations": {}, "dependent_configurations": {}, "hosts": group["hosts"]}
            recommendations["recommendations"]["config-groups"].append(result)
            for config_type, elements in configurations.items():
                result["configurations"][config_type] = {}
                result["dependent_configurations"][config_type] = {}
                for element, values in elements.items():
                    key = "configurations" if config_type in group["configurations"] else "dependent_configurations"
                    result[key][config_type][element] = dict(values)
                    other = "dependent_configurations" if key == "configurations" else "configurations"
                    result[other][config_type][element] = {}

    def recommendConfigurationDependencies(self, services, hosts):
        self.allRequestedProperties = self.getAllRequestedProperties(services)
        result = self.recommendConfigurations(services, hosts)
        requested = self.getAllRequestedProperties(services)
        self.filterConfigs(result["recommendations"]["blueprint"]["configurations"], requested)
        return result

    def getAllRequestedProperties(self, services):
        requested = {}
        for config in self.getAffectedConfigs(services):
            requested.setdefault(config["type"], []).append(config["name"])
        return requested

    def getAffectedConfigs(self, services):
        """changed-configurations plus everything that depends on them, transitively."""
        changed = [{"type": c["type"], "name": c["name"]} for c in services["changed-configurations"]]
        all_dependencies = []
        for service in services["services"]:
            all_dependencies.extend(service.get("configurations", []))
        dependencies = []
        size = -1
        while size != len(dependencies):
            size = len(dependencies)
            for config in all_dependencies:
                prop = {"type": re.sub(r"\.xml$", "", config["StackConfigurations"]["type"]),
                        "name": config["StackConfigurations"]["property_name"]}
                if prop in dependencies or prop in changed:
                    for dep in config["dependencies"]:
                        dependency = {"name": dep["StackConfigurationDependency"]["dependency_name"],
                                      "type": dep["StackConfigurationDependency"]["dependency_type"]}
                        if dependency not in dependencies:
                            dependencies.append(dependency)
        if services.get("forced-configurations") is not None:
            dependencies.extend(services["forced-configurations"])
        return dependencies

    def filterConfigs(self, configs, requested):
        filtered = {}
        for config_type, elements in configs.items():
            for element in ("properties", "property_attributes"):
                for name in elements.get(element, {}):
                    if name in requested.get(config_type, []):
                        filtered.setdefault(config_type, {}).setdefault(element, {})[name] = \
                            configs[config_type][element][name]
        configs.clear()
        configs.update(filtered)

    def validateConfigurations(self, services, hosts):
        self.services = services
        recommended = self.recommendConfigurations(services, hosts)["recommendations"]["blueprint"]["configurations"]
        items = []
        for service in services["services"]:
            advisor = self.getServiceAdvisor(service["StackServices"]["service_name"])
            if advisor is not None:
                items.extend(advisor.getServiceConfigurationsValidationItems(
                    services["configurations"], recommended, services, hosts))
        return {"Versions": services["Versions"], "items": items}

    def validateComponentLayout(self, services, hosts):
        self.services = services
        items = []
        for advisor in self._advisors(services):
            items.extend(advisor.getServiceComponentLayoutValidations(services, hosts))
        return {"Versions": services["Versions"], "items": items}

    # --- helpers service advisors use ------------------------------------------------------------

    def getActiveHosts(self, hosts):
        return [h["host_name"] for h in hosts or []
                if h.get("maintenance_state") is None or h.get("maintenance_state") == "OFF"]

    def getComponentName(self, component):
        return (component.get("StackServiceComponents") or {}).get("component_name")

    def getWarnItem(self, message):
        return {"level": "WARN", "message": message}

    def getErrorItem(self, message):
        return {"level": "ERROR", "message": message}

    def toConfigurationValidationProblems(self, validationProblems, siteName):
        result = []
        for problem in validationProblems:
            item = problem.get("item")
            if item is not None:
                result.append({"type": "configuration", "level": item["level"], "message": item["message"],
                               "config-type": siteName, "config-name": problem["config-name"]})
        return result

    def getSiteProperties(self, configurations, siteName):
        site = configurations.get(siteName)
        return None if site is None else site.get("properties")

    def getServicesSiteProperties(self, services, siteName):
        if not services or not services.get("configurations"):
            return None
        return self.getSiteProperties(services["configurations"], siteName)

    def validateListOfConfigUsingMethod(self, configurations, recommendedDefaults, services, hosts, validators):
        items = []
        for config_type, method in validators:
            # Only types the recommendations touched are validated.
            if config_type in recommendedDefaults:
                props = self.getSiteProperties(configurations, config_type)
                if props is not None:
                    items.extend(method(props, recommendedDefaults[config_type]["properties"],
                                        configurations, services, hosts))
        return items

    def putProperty(self, config, configType, services=None):
        user_configs = {}
        changed = []
        if services:
            user_configs = services.get("configurations", {})
            changed = services.get("changed-configurations", [])
        config.setdefault(configType, {}).setdefault("properties", {})

        def appendProperty(key, value):
            # A property the operator changed in this request keeps the operator's value.
            if not self.isPropertyRequested(configType, key, changed) \
                    and configType in user_configs and key in user_configs[configType]["properties"]:
                config[configType]["properties"][key] = user_configs[configType]["properties"][key]
            else:
                config[configType]["properties"][key] = str(value)
        return appendProperty

    def isPropertyRequested(self, configType, propertyName, changedConfigs):
        if self.allRequestedProperties:
            return propertyName in self.allRequestedProperties.get(configType, [])
        return not any(c["type"] == configType and c["name"] == propertyName for c in changedConfigs)

    def putPropertyAttribute(self, config, configType):
        config.setdefault(configType, {})

        def appendPropertyAttribute(key, attribute, attributeValue):
            attributes = config[configType].setdefault("property_attributes", {}).setdefault(key, {})
            attributes[attribute] = attributeValue if isinstance(attributeValue, list) else str(attributeValue)
        return appendPropertyAttribute

    def getServiceComponents(self, services, serviceName):
        for service in (services or {}).get("services", []):
            if service["StackServices"]["service_name"] == serviceName:
                return list(service["components"])
        return []

    def getHostsForComponent(self, services, serviceName, componentName):
        for component in self.getServiceComponents(services, serviceName):
            if component["StackServiceComponents"]["component_name"] == componentName:
                return list(component["StackServiceComponents"]["hostnames"])
        return []

    def is_secured_cluster(self, services):
        props = ((services or {}).get("configurations", {}).get("cluster-env") or {}).get("properties", {})
        return bool(services) and props.get("security_enabled", "").lower() == "true"

    def isSecurityEnabled(self, services):
        return self.is_secured_cluster(services)
