# Granularity paper Figs. 3 and 5: normalized test MSE of trained students vs their total size relative
# to the teacher, one line per student granularity k' (students (2 k' s)e(k')a, s = 1, 2, 4, ...).
# The paper's result: even 16x the teacher's parameters do not let a student of granularity below the
# teacher's fit it; students of the teacher's granularity do.
# Usage: gnuplot -e "csv='results/moe_granularity_fig3_quick.csv'; png='results/moe_granularity_fig3_quick.png'" plots/moe_granularity_fig3_quick.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/moe_granularity_fig3_quick.csv'
if (!exists("png")) png = 'results/moe_granularity_fig3_quick.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} {print $k}' '%s' | sort -n | uniq | tr '\\n' ' '", name, csv))
first_value(name) = system(sprintf("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} {print $k; exit}' '%s'", name, csv))
students = col_values("student_k")
teacher = first_value("teacher")
dval = first_value("d")
samples = first_value("samples")
tn = first_value("teacher_w") * first_value("teacher_k")
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 900,600 enhanced font ",11"
  } else {
    set terminal png size 900,600
  }
  set output png
} else {
  set terminal svg size 900,600 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set title sprintf("Loss vs student size, teacher %s (d = %s, kw = %d, %s samples per run); %s", teacher, dval, tn, samples, trials_text)
set xlabel "student parameters / teacher parameters"
set ylabel "normalized test MSE (best learning rate)"
set logscale x 2
set yrange [-0.02:*]
set grid
set key top right box opaque
plot for [i = 1:words(students)] csv using (column("student_k") == word(students, i) + 0 ? column("student_size") : 1/0):"nmse_mean":"nmse_std_error" \
       with yerrorlines pt 7 lw 2 title sprintf("granularity %s", word(students, i))
unset logscale x
unset yrange
}
