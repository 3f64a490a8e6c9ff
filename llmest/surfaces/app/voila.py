# Voila reads this file and voila.json beside it (make app: --Voila.config_file_paths=llmest/surfaces/app).
# voila.json holds the settings (the cap on kernels, the idle cull); this file adds what JSON cannot hold: the hook
# that shows a visitor past the cap a page saying the calculators are busy.
from llmest.surfaces.app.capacity import busy_page

c = get_config()  # noqa: F821 (given by traitlets when it runs this file)
c.VoilaConfiguration.prelaunch_hook = busy_page
