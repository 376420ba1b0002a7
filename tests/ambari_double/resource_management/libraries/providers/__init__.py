PROVIDERS = dict(
    default=dict(
        PropertiesFile="resource_management.libraries.providers.properties_file.PropertiesFileProvider",
    ),
)
